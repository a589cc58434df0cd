// Completion hints: what Tab offers for a flag's value or an argument, written on the
// Option or Argument in its command's definition (`completes(new Option(…), 'profiles')`).
// The build reads them off the program into the completion spec (complete.ts), where they
// are plain data: this module loads neither commander nor anything else.

/** Where the candidates come from; complete.ts's Sources answers each. */
export type CompletionHint =
  /** A fixed list. */
  | { readonly values: readonly string[] }
  /** Public IDs seen before of this resource (table name), with their names. */
  | { readonly ids: string }
  /** `FIELD=` for `wait --for`: status, then the resource's default columns. */
  | { readonly conditions: string }
  /** Field names of the command's resource, as a comma-separated list (`--fields a,b,`). */
  | 'fields'
  | 'profiles'
  /** The shell's own file-name completion. */
  | 'files'
  /** Config keys `config get|unset` reads; 'settable-config-keys' for `config set`. */
  | 'config-keys'
  | 'settable-config-keys'
  /** The value of `config set KEY`, by the key before it. */
  | 'config-value'
  /** Collection paths and the kept reference's operation IDs (`hostctl api`). */
  | 'api-targets'
  /** Help topics and command words (`hostctl help`). */
  | 'help';

const hints = new WeakMap<object, CompletionHint>();

/** Attaches a hint to an Option or Argument and returns it, for chaining in a definition. */
export function completes<T extends object>(target: T, hint: CompletionHint): T {
  hints.set(target, hint);
  return target;
}

export function completionHint(target: object): CompletionHint | undefined {
  return hints.get(target);
}

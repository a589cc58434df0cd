// `--jq EXPR`: jq itself (jqlang/jq's C source compiled to WebAssembly by emscripten, the
// jq-wasm package), not a look-alike, so that an expression means here what it means in
// jq. Loaded only when --jq is given: it is 1.3 MB.

import { HostctlError, UsageError } from '../errors.js';

interface JqModule {
  raw(input: string, filter: string, flags?: string[]): Promise<string>;
}

let engine: Promise<JqModule> | undefined;

function load(): Promise<JqModule> {
  return (engine ??= import('jq-wasm') as Promise<JqModule>);
}

/** jq's message without the wrapper's lines: the first line, "jq: error: " dropped. */
function jqMessage(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const line = text.replace(/^Failed to execute raw query: /, '').split('\n')[0] ?? '';
  return line.replace(/^jq: error(?::\s*)?/, '').trim();
}

/**
 * Compiles `expr` without running it, so that a syntax error is a usage error (exit 2)
 * before any request: inside `if false then … else empty end`, jq compiles the
 * expression and never evaluates it. The newlines keep a trailing `# comment` in the
 * expression from swallowing the wrapper.
 */
export async function checkJq(expr: string): Promise<void> {
  const jq = await load();
  try {
    await jq.raw('null', `if false then (\n${expr}\n) else empty end`, ['-n']);
    return;
  } catch {
    // jq's own words come from compiling the expression alone: a program that does not
    // compile never runs. One that does compile alone (the wrapper cannot hold a module
    // directive) is accepted.
  }
  try {
    await jq.raw('null', expr, ['-n']);
  } catch (err) {
    const text = err instanceof Error ? err.message : String(err);
    if (!/compile error/.test(text)) return;
    const message = jqMessage(err).replace(/:$/, '').replace(/\s*\(Unix shell quoting issues\?\)/, '');
    throw new UsageError(`--jq: ${message || 'the expression does not compile'}.`, 'Check the expression; jq\'s manual: https://jqlang.org/manual/');
  }
}

/** jq's output for `input` (JSON text), strings raw as with `jq -r`. */
export async function runJq(input: string, expr: string): Promise<string> {
  const jq = await load();
  try {
    const out = await jq.raw(input, expr, ['-r']);
    return out === '' || out.endsWith('\n') ? out : `${out}\n`;
  } catch (err) {
    throw new HostctlError(`--jq: ${jqMessage(err).replace(/\(at \/dev\/stdin:\d+\):\s*/, '')}`, 'The expression ran over the output as `--json` prints it; check it against that.');
  }
}

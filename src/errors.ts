// Every failure the user can meet is one of these. The entry point (cli.ts) turns them
// into one clean message on stderr and the contract's exit code; commands only throw.

export const ExitCode = {
  Ok: 0,
  Error: 1,
  Usage: 2,
  NotFound: 3,
  Auth: 4,
  RateLimited: 5,
  Network: 6,
  /** `wait`: the deadline passed before the condition held. */
  Deadline: 7,
  Interrupted: 130,
  /** A server (`mcp --http`) stopped by SIGTERM. */
  Terminated: 143,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export class HostctlError extends Error {
  readonly exitCode: ExitCode = ExitCode.Error;
  /** The next step to take, printed after the message. */
  readonly hint?: string;

  constructor(message: string, hint?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.hint = hint;
  }
}

/** A usage error: bad flag, bad ID, bad base URL. No request was sent. */
export class UsageError extends HostctlError {
  override readonly exitCode = ExitCode.Usage;
}

/** An object the API did not return, or a 404. */
export class NotFoundError extends HostctlError {
  override readonly exitCode = ExitCode.NotFound;
  /** The public IDs asked for and not returned, where the command knows them. */
  readonly ids?: readonly string[];

  constructor(message: string, hint?: string, options?: { cause?: unknown; ids?: readonly string[] }) {
    super(message, hint, options);
    this.ids = options?.ids;
  }
}

/** No token, token rejected, keychain unavailable. */
export class AuthError extends HostctlError {
  override readonly exitCode = ExitCode.Auth;
}

/** Rate limited and not retried (--no-wait, or --max-wait spent). */
export class RateLimitError extends HostctlError {
  override readonly exitCode = ExitCode.RateLimited;
  /** Seconds until a request is welcome again, where known. */
  readonly retryAfter?: number;

  constructor(message: string, hint?: string, options?: { cause?: unknown; retryAfter?: number }) {
    super(message, hint, options);
    this.retryAfter = options?.retryAfter;
  }
}

/** Connection refused, DNS, TLS, timeout, reset. */
export class NetworkError extends HostctlError {
  override readonly exitCode = ExitCode.Network;
  /** The connection broke before any answer arrived: a GET may safely be sent again. */
  readonly dropped: boolean;
  declare readonly hint: string;

  /** `hint` is required: whatever broke, the user needs a next step (and `--json` its `hint`). */
  constructor(message: string, hint: string, options?: { cause?: unknown; dropped?: boolean }) {
    super(message, hint, options);
    this.dropped = options?.dropped === true;
  }
}

/** `wait`: the deadline passed before every object met the condition. */
export class DeadlineError extends HostctlError {
  override readonly exitCode = ExitCode.Deadline;
  /** The objects that did not meet it, by public ID, with the values their fields had. */
  readonly unmet?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;

  constructor(message: string, hint?: string, options?: { cause?: unknown; unmet?: Readonly<Record<string, Readonly<Record<string, unknown>>>> }) {
    super(message, hint, options);
    this.unmet = options?.unmet;
  }
}

/** The API answered with an error (5xx, unexpected status) or with something malformed. */
export class ApiError extends HostctlError {
  override readonly exitCode = ExitCode.Error;
  readonly status?: number;

  constructor(message: string, hint?: string, options?: { cause?: unknown; status?: number }) {
    super(message, hint, options);
    this.status = options?.status;
  }
}

/** The user pressed Ctrl-C (at a prompt hostctl reads in raw mode, where no SIGINT comes). */
export class InterruptedError extends HostctlError {
  override readonly exitCode = ExitCode.Interrupted;
}

/**
 * The command has done what was asked and ends early, successfully: --dry-run after the
 * first request it printed. Not a failure: nothing is reported, exit 0.
 */
export class StopHere extends HostctlError {
  override readonly exitCode = ExitCode.Ok;

  constructor() {
    super('');
  }
}

/** The machine-readable name of each exit code (the contract's list): one per code. */
export const ERROR_CODES = {
  [ExitCode.Error]: 'api',
  [ExitCode.Usage]: 'usage',
  [ExitCode.NotFound]: 'not_found',
  [ExitCode.Auth]: 'auth',
  [ExitCode.RateLimited]: 'rate_limited',
  [ExitCode.Network]: 'network',
  [ExitCode.Deadline]: 'deadline',
  [ExitCode.Interrupted]: 'interrupted',
  [ExitCode.Terminated]: 'terminated',
} as const;
export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

/** An error as data: what `--json` prints on stderr, and what the MCP server's tool errors carry. */
export interface ErrorData {
  code: ErrorCode;
  message: string;
  hint?: string;
  exit: Exclude<ExitCode, 0>;
  /** rate_limited: seconds until a request is welcome again. */
  retryAfter?: number;
  /** not_found: the IDs that were not returned. */
  ids?: string[];
  /** api: the HTTP status the API answered with. */
  status?: number;
  /** deadline: the objects that did not meet the condition, with their values. */
  unmet?: Record<string, Record<string, unknown>>;
}

/**
 * Any failure as data, by its class: the code, exit code and the members that class
 * carries. Anything not a HostctlError is an unexpected error (exit 1). Pure: the message
 * is as built (the sink that writes it scrubs it).
 */
export function errorData(err: unknown): ErrorData {
  if (!(err instanceof HostctlError)) {
    return { code: 'api', message: `unexpected error: ${err instanceof Error ? err.message : String(err)}`, exit: ExitCode.Error };
  }
  const exit = err.exitCode === ExitCode.Ok ? ExitCode.Error : err.exitCode;
  const data: ErrorData = { code: ERROR_CODES[exit], message: err.message, ...(err.hint ? { hint: err.hint } : {}), exit };
  if (err instanceof RateLimitError && err.retryAfter !== undefined) data.retryAfter = err.retryAfter;
  if (err instanceof NotFoundError && err.ids) data.ids = [...err.ids];
  if (err instanceof ApiError && err.status !== undefined) data.status = err.status;
  if (err instanceof DeadlineError && err.unmet) data.unmet = Object.fromEntries(Object.entries(err.unmet).map(([id, v]) => [id, { ...v }]));
  return data;
}

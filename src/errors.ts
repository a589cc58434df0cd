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
}

/** No token, token rejected, keychain unavailable. */
export class AuthError extends HostctlError {
  override readonly exitCode = ExitCode.Auth;
}

/** Rate limited and not retried (--no-wait, or --max-wait spent). */
export class RateLimitError extends HostctlError {
  override readonly exitCode = ExitCode.RateLimited;
}

/** Connection refused, DNS, TLS, timeout, reset. */
export class NetworkError extends HostctlError {
  override readonly exitCode = ExitCode.Network;
  /** The connection broke before any answer arrived: a GET may safely be sent again. */
  readonly dropped: boolean;

  constructor(message: string, hint?: string, options?: { cause?: unknown; dropped?: boolean }) {
    super(message, hint, options);
    this.dropped = options?.dropped === true;
  }
}

/** `wait`: the deadline passed before every object met the condition. */
export class DeadlineError extends HostctlError {
  override readonly exitCode = ExitCode.Deadline;
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

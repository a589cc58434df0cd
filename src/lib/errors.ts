// The library's one error class. Its fields are those of the CLI's `--json` error
// (src/errors.ts errorData), so that a script and a shell script branch on the same codes.
// It carries no `cause`: an internal error's own text was never scrubbed of the token.

import type { ErrorCode, ExitCode } from './types.js';

export interface HostctlErrorFields {
  code: ErrorCode;
  message: string;
  exit: ExitCode;
  hint?: string;
  ids?: string[];
  retryAfter?: number;
  status?: number;
  unmet?: Record<string, Record<string, unknown>>;
}

export class HostctlError extends Error {
  /** The `--json` error code. */
  readonly code: ErrorCode;
  /** The exit code the CLI's command would have ended with. */
  readonly exit: ExitCode;
  /** The next step to take. */
  declare readonly hint?: string;
  /** not_found: the public IDs the API did not return. */
  declare readonly ids?: string[];
  /** rate_limited: seconds until a request is welcome again. */
  declare readonly retryAfter?: number;
  /** api: the HTTP status the API answered with. */
  declare readonly status?: number;
  /** deadline: the objects that did not meet the conditions, with their fields' values. */
  declare readonly unmet?: Record<string, Record<string, unknown>>;

  constructor(fields: HostctlErrorFields) {
    super(fields.message);
    this.code = fields.code;
    this.exit = fields.exit;
    if (fields.hint !== undefined) this.hint = fields.hint;
    if (fields.ids !== undefined) this.ids = fields.ids;
    if (fields.retryAfter !== undefined) this.retryAfter = fields.retryAfter;
    if (fields.status !== undefined) this.status = fields.status;
    if (fields.unmet !== undefined) this.unmet = fields.unmet;
  }

  /** As the CLI's `--json` error: the message with the fields (JSON.stringify leaves an Error's message out). */
  toJSON(): HostctlErrorFields {
    return { ...this, message: this.message };
  }
}

// On the prototype, so that the name is shown (stack, inspect) but is no field of the data.
Object.defineProperty(HostctlError.prototype, 'name', { value: 'HostctlError', writable: true, configurable: true });

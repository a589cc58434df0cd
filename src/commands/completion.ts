import type { Context } from '../context.js';
import { HostctlError } from '../errors.js';
export async function completionRun(_ctx: Context, _shell: string): Promise<void> { throw new HostctlError('Not implemented yet.'); }

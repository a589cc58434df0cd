import type { Context } from '../context.js';
import { HostctlError } from '../errors.js';
export async function rateLimitRun(_ctx: Context, _o: { refresh?: boolean }): Promise<void> { throw new HostctlError('Not implemented yet.'); }

import type { Context } from '../context.js';
import { HostctlError } from '../errors.js';
export async function docsRun(_ctx: Context, _o: { open?: boolean; operations?: boolean }): Promise<void> { throw new HostctlError('Not implemented yet.'); }

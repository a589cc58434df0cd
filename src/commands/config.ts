import type { Context } from '../context.js';
import { HostctlError } from '../errors.js';
export async function configRun(_ctx: Context, _verb: 'list' | 'get' | 'set' | 'unset' | 'path', _args: string[]): Promise<void> { throw new HostctlError('Not implemented yet.'); }

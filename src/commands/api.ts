import type { Context } from '../context.js';
import { HostctlError } from '../errors.js';
export interface ApiOptions { method?: string; rawField: string[]; field: string[]; input?: string; header: string[]; include?: boolean; paginate?: boolean }
export async function apiRun(_ctx: Context, _path: string, _o: ApiOptions): Promise<void> { throw new HostctlError('Not implemented yet.'); }

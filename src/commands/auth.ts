import type { Context } from '../context.js';
import { HostctlError } from '../errors.js';
const todo = () => { throw new HostctlError('Not implemented yet.'); };
export async function loginRun(_ctx: Context, _o: { withToken?: boolean; insecureStorage?: boolean }): Promise<void> { todo(); }
export async function statusRun(_ctx: Context, _o: { check?: boolean }): Promise<void> { todo(); }
export async function logoutRun(_ctx: Context): Promise<void> { todo(); }
export async function tokenRun(_ctx: Context): Promise<void> { todo(); }

import type { Context } from '../context.js';
import type { Resource } from '../resources.js';
export async function listRun(_ctx: Context, _r: Resource, _opts: Record<string, unknown>): Promise<void> {}
export async function getRun(_ctx: Context, _r: Resource, _ids: string[]): Promise<void> {}

// The app at a glance (`hostctl status`, MCP's app_status, the library's status): the app,
// each environment with its latest deployment, and the domains. It takes an HTTP client
// and hooks, not a command's Context, so that every caller sends the same requests.
//
// Requests: the app by ID (1), the environments walked for those referencing it (their
// pages), then the deployments of those environments (the API's route per environment,
// one request per page of each, while there are at most 3; else one walk of
// /deployments), then one walk of /domains. `--cache` answers a repeat from the cache.

import { NotFoundError } from '../errors.js';
import { findResource, NAME_FIELDS, type Resource } from '../resources.js';
import { isRecord, publicIdOf } from '../json/narrow.js';
import { parseIsoTime } from '../output/time.js';
import type { HttpClient } from '../http/client.js';
import { references, sources, walkSources, type Source, type WalkOptions } from './relations.js';

/**
 * Fields that hold a time, in the order tried: the first one a deployment holds as an ISO
 * timestamp tells which is latest.
 */
const TIME_FIELDS: readonly string[] = ['createdAt', 'created_at', 'created', 'startedAt', 'started_at', 'updatedAt', 'updated_at', 'updated'];
/** Fields that hold an object's state, in the order tried. */
const STATE_FIELDS: readonly string[] = ['status', 'state', 'phase'];

export interface DeploymentSummary {
  publicId: string | null;
  status: string | null;
  /** The time that made it the latest, as the server sent it. */
  at: string;
  /** The field that time was read from. */
  timeField: string;
}

export interface EnvironmentStatus {
  publicId: string;
  name: string | null;
  status: string | null;
  /** Null when it has no deployment, or when the server gives no way to tell which is latest (see note). */
  latestDeployment: DeploymentSummary | null;
  deployments: number;
  note?: string;
}

export interface DomainStatus {
  publicId: string | null;
  hostname: string | null;
  status: string | null;
  /** The environment it references, or null when it references only the app. */
  environment: string | null;
}

export interface AppStatus {
  app: { publicId: string; name: string | null; status: string | null };
  environments: EnvironmentStatus[];
  domains: DomainStatus[];
}

export interface StatusOptions extends Pick<WalkOptions, 'fresh' | 'walking'> {
  signal?: AbortSignal;
  /** After the app's fetch, before the walks. */
  onApp?: () => void;
}

function resource(name: string): Resource {
  const r = findResource(name);
  if (!r) throw new Error(`no resource ${name}`);
  return r;
}

/** The first of `fields` that `item` holds as a non-empty string. */
function firstString(item: unknown, fields: readonly string[]): string | null {
  if (!isRecord(item)) return null;
  for (const f of fields) {
    const v = item[f];
    if (typeof v === 'string' && v !== '') return v;
  }
  return null;
}

function timeOf(item: unknown): { at: string; ms: number; field: string } | undefined {
  if (!isRecord(item)) return undefined;
  for (const field of TIME_FIELDS) {
    const v = item[field];
    const ms = typeof v === 'string' ? parseIsoTime(v) : undefined;
    if (typeof v === 'string' && ms !== undefined) return { at: v, ms, field };
  }
  return undefined;
}

const NO_LATEST = 'the server gives no way to tell which deployment is latest (no deployment has a time hostctl recognises)';

/** The latest of one environment's deployments by their time, or why none can be named. */
function latestOf(deployments: readonly unknown[]): Pick<EnvironmentStatus, 'latestDeployment' | 'note'> {
  let best: { item: unknown; at: string; ms: number; field: string } | undefined;
  for (const item of deployments) {
    const t = timeOf(item);
    if (t && (!best || t.ms >= best.ms)) best = { item, ...t };
  }
  if (!best) return deployments.length === 0 ? { latestDeployment: null } : { latestDeployment: null, note: NO_LATEST };
  return { latestDeployment: { publicId: publicIdOf(best.item) ?? null, status: firstString(best.item, STATE_FIELDS), at: best.at, timeField: best.field } };
}

/** `app`'s status, in the requests the header says. */
export async function appStatus(http: HttpClient, app: string, opts: StatusOptions = {}): Promise<AppStatus> {
  const { fetchByIds } = await import('./by-id.js');
  const apps = resource('apps');
  const deploymentsR = resource('deployments');
  const signal = opts.signal;
  signal?.throwIfAborted();
  const found = (await fetchByIds(http, apps, [app], { fresh: opts.fresh === true })).get(app);
  if (found === undefined) throw new NotFoundError(`not found: ${app}`, 'Run "hostctl apps list" to see the apps this token can see.', { ids: [app] });
  opts.onApp?.();

  const appIds = new Set([app]);
  const environments: unknown[] = [];
  const seenEnv = new Set<string>();
  const walk: WalkOptions = {
    fresh: opts.fresh,
    walking: (what, later) => {
      signal?.throwIfAborted();
      return opts.walking?.(what, what === 'environments' ? [...later, 'domains'] : later) ?? {};
    },
    through: (_name, items) => {
      for (const item of items) {
        const id = publicIdOf(item);
        if (id !== undefined && !seenEnv.has(id) && references(item, appIds)) {
          seenEnv.add(id);
          environments.push(item);
        }
      }
    },
  };
  const byApp = deploymentsR.relations?.find((r) => r.target === 'apps');
  if (!byApp) throw new Error('deployments have no app relation');
  // One walk of the environments answers both which environments are the app's and where their deployments are.
  const depSources = await sources(http, deploymentsR, { relation: byApp, id: app }, walk);
  const envIds = [...seenEnv];
  const route = deploymentsR.relations?.find((r) => r.target === 'environments')?.route;
  const routeEnv = new Map(envIds.map((id) => [route?.replace('{id}', encodeURIComponent(id)), id]));
  const deployments = new Map<string, unknown[]>(envIds.map((id) => [id, []]));
  for await (const page of walkSources(http, depSources, undefined, walk)) {
    const src: Source | undefined = depSources[page.source];
    const fromRoute = src && src.keep === undefined ? routeEnv.get(src.path) : undefined;
    for (const [, item] of page.kept) {
      const env = fromRoute ?? envIds.find((id) => references(item, new Set([id])));
      if (env !== undefined) deployments.get(env)?.push(item);
    }
  }

  const domains: DomainStatus[] = [];
  const domainSource: Source = { what: 'domains', path: resource('domains').path, keep: [app, ...envIds] };
  for await (const page of walkSources(http, [domainSource], undefined, walk)) {
    for (const [, item] of page.kept) {
      domains.push({
        publicId: publicIdOf(item) ?? null,
        hostname: firstString(item, ['hostname', 'fqdn', 'domain', ...NAME_FIELDS]),
        status: firstString(item, STATE_FIELDS),
        environment: envIds.find((id) => references(item, new Set([id]))) ?? null,
      });
    }
  }

  return {
    app: { publicId: app, name: firstString(found, NAME_FIELDS), status: firstString(found, STATE_FIELDS) },
    environments: environments.map((env) => {
      const id = publicIdOf(env) ?? '';
      const list = deployments.get(id) ?? [];
      return { publicId: id, name: firstString(env, NAME_FIELDS), status: firstString(env, STATE_FIELDS), ...latestOf(list), deployments: list.length };
    }),
    domains,
  };
}

// The library's public types (`import type { … } from 'hostctl'`). This module imports
// nothing: scripts/build.mjs emits its declarations as they are, so that the .d.ts a
// consumer type-checks against is this file, and names no type of a devDependency.
// test/unit/library-types.test.ts holds RESOURCE_FILTERS against the resource table.

/**
 * Each resource the client reads, with the relation filters its `list` takes (the CLI's
 * `--app`, `--environment`, `--team`).
 */
export const RESOURCE_FILTERS = {
  apps: ['team'],
  environments: ['app'],
  deployments: ['environment', 'app'],
  domains: ['environment', 'app'],
  teams: [],
  people: ['team'],
  'payment-methods': ['team'],
} as const;

/** A resource's name, as the CLI's noun: `apps`, `deployments`, `payment-methods`. */
export type ResourceName = keyof typeof RESOURCE_FILTERS;

/** The relation filters `list` takes for resource `R`. */
export type RelationFilter<R extends ResourceName> = (typeof RESOURCE_FILTERS)[R][number];

/** An object of the API, as `hostctl … --json` prints it (JSON-LD `@` members left out). */
export type ApiObject = Record<string, unknown>;

/** The `--json` error codes (docs/commands.md, "Exit codes"). */
export type ErrorCode = 'api' | 'usage' | 'not_found' | 'auth' | 'rate_limited' | 'network' | 'deadline' | 'interrupted' | 'terminated';

/** The CLI's exit code for each error code. */
export type ExitCode = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 130 | 143;

/** A duration as the CLI takes it: `30s`, `10m`, `1h30m`, `500ms`, or a number of seconds. */
export type Duration = string | number;

export interface ClientOptions {
  /** A profile of the config (`hostctl auth login --profile`); default HOSTCTL_PROFILE, then the config's default. */
  profile?: string;
  /** The API's base URL, ending in /v1; default HOSTCTL_BASE_URL, then the profile's. */
  baseUrl?: string;
  /** The token; default HOSTCTL_TOKEN, then the profile's (keychain or file). */
  token?: string;
  /** Accept answers up to this old from the shared cache (`--cache`); default HOSTCTL_CACHE, then the profile's, else none. */
  cache?: Duration;
  /** The longest total wait for the rate limit, in seconds (`--max-wait`); default 120. */
  maxWait?: number;
  /** A fleet's shared budget (`HOSTCTL_REDIS_URL`); default HOSTCTL_REDIS_URL, then the profile's. */
  redisUrl?: string;
  /** The environment settings are read from; default process.env. */
  env?: Record<string, string | undefined>;
  /**
   * What the CLI would print as a warning (a token stored in clear text, a fleet store that
   * cannot be used); default: process.emitWarning, with the type "HostctlWarning".
   */
  onWarning?: (message: string) => void;
}

/** Options of `list` for resource `R`: at most one relation filter, and a limit. */
export type ListOptions<R extends ResourceName> = {
  /** Stop after this many objects: no page is fetched after it. */
  limit?: number;
} & { [F in RelationFilter<R>]?: string };

export interface GetManyResult {
  /** The objects found, in the order of the IDs asked for. */
  items: ApiObject[];
  /** The IDs the API did not return. */
  notFound: string[];
}

export interface WaitOptions {
  /** Conditions, each `FIELD=VALUE` or `FIELD!=VALUE` (FIELD a dotted path); all must hold. */
  for: readonly string[];
  /** Give up (HostctlError code `deadline`) after this long; default 10m. */
  deadline?: Duration;
  /** Time between polls; default 5s, longer when the token's budget needs it. */
  interval?: Duration;
  /** Aborting it ends the wait (HostctlError code `interrupted`); nothing more is sent. */
  signal?: AbortSignal;
}

/** The token's rate-limit state, as `hostctl rate-limit --json`; null where the API has not said. */
export interface RateLimitState {
  limit: number | null;
  remaining: number | null;
  /** ISO time when the window resets. */
  resetAt: string | null;
  resetInSeconds: number | null;
  /** ISO time of the response this was read from. */
  seenAt: string | null;
  /** Only with a fleet's shared store (redisUrl): where it is, what the fleet spent in the window, interactive commands waiting. */
  budget?: { store: 'redis'; where: string; spent: number | null; waiting: number };
}

export interface RequestOptions {
  /** Appended to the query; a key may repeat (`publicId[]`). */
  query?: Record<string, string | number | boolean | ReadonlyArray<string | number | boolean>> | ReadonlyArray<readonly [string, string]>;
  /** Sent as JSON unless a string or bytes. */
  body?: unknown;
  /** May set Accept or Content-Type; never Authorization. */
  headers?: Record<string, string>;
}

/** An answer of `request`, whatever its status (as `hostctl api`). */
export interface ApiResponse {
  status: number;
  statusText: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** The final URL, after redirects. */
  url: string;
  text: string;
  /** The body as JSON; throws HostctlError code `api` when it is not JSON. */
  json(): unknown;
}

/** An app at a glance, as `hostctl status --json`. */
export interface AppStatus {
  app: { publicId: string; name: string | null; status: string | null };
  /** Each environment with its latest deployment. */
  environments: {
    publicId: string;
    name: string | null;
    status: string | null;
    /** Null when it has no deployment, or when the server gives no way to tell which is latest (see note). */
    latestDeployment: { publicId: string | null; status: string | null; at: string; timeField: string } | null;
    deployments: number;
    note?: string;
  }[];
  domains: { publicId: string | null; hostname: string | null; status: string | null; environment: string | null }[];
}

export interface Client {
  /** Every object of `resource` (filtered as `list --app` is), page by page as the loop asks; leaving the loop fetches no more. */
  list<R extends ResourceName>(resource: R, options?: ListOptions<R>): AsyncIterable<ApiObject>;
  /** The objects with these public IDs, in batched requests (as `get`), order kept. */
  getMany(resource: ResourceName, ids: readonly string[]): Promise<GetManyResult>;
  /** The object with this public ID; HostctlError code `not_found` when absent. */
  get(resource: ResourceName, id: string): Promise<ApiObject>;
  /** Polls (as `wait`) until every object meets every condition; resolves with the objects, in order. */
  wait(resource: ResourceName, ids: readonly string[], options: WaitOptions): Promise<ApiObject[]>;
  /** The app at a glance (as `hostctl status ap-… --json`), with as few requests as the API allows. */
  status(app: string): Promise<AppStatus>;
  /** The token's last rate-limit state (no request). */
  rateLimit(): Promise<RateLimitState>;
  /** Any endpoint, raw (as `hostctl api`): the answer whatever its status. */
  request(method: string, path: string, options?: RequestOptions): Promise<ApiResponse>;
  /** Saves what the client learnt and closes its connections; the client then refuses further calls. */
  close(): Promise<void>;
}

// The one table of resources. Every `list`/`get` command, the completion candidates and
// the sandbox's collections are generated from it: a new resource is one entry here.

import { oneLine } from './output/sanitize.js';

export interface Resource {
  /** Command name and key in the ID cache: `hostctl <name> list`. */
  readonly name: string;
  /** Other command names: the singular, and short forms (`envs`, `env`). */
  readonly aliases: readonly string[];
  /** What one object is called in messages. */
  readonly singular: string;
  /** Collection path relative to the base URL (which ends in /v1). */
  readonly path: string;
  /**
   * Public ID prefix where the platform document states one. Only these are checked
   * before a request; the document shows no prefix for the others.
   */
  readonly prefix?: string;
  /**
   * Columns after `publicId`, in priority order: the table drops the last first on a
   * narrow terminal; tsv writes all of them always, empty where absent.
   */
  readonly columns: readonly string[];
  readonly description: string;
  /** `list` filters by a related object: `environments list --app ap-…`. */
  readonly relations?: readonly Relation[];
}

/**
 * A list filter. Without `route` or `through`, hostctl walks the collection and keeps the
 * objects that reference the ID by value (see references() in core/relations.ts),
 * whatever the server calls the field.
 */
export interface Relation {
  /** The flag, without dashes: `--app`. */
  readonly flag: string;
  /** The resource the ID belongs to (checks its prefix; names it in messages). */
  readonly target: string;
  /** The API's own way, where it has one: a path with `{id}`. */
  readonly route?: string;
  /**
   * Reached through another resource: the objects of `through` that reference the ID are
   * found first, then the objects that reference any of them.
   */
  readonly through?: string;
}

/**
 * Fields that name an object, in the order tried: the names shown beside IDs (tables,
 * the detail view, completion) come from these, whatever the server calls them.
 */
export const NAME_FIELDS: readonly string[] = ['name', 'displayName', 'fullName', 'title', 'label', 'hostname', 'fqdn', 'email'];

export const RESOURCES: readonly Resource[] = [
  {
    name: 'apps',
    aliases: ['app'],
    singular: 'app',
    path: '/apps',
    prefix: 'ap-',
    columns: ['name', 'status', 'region', 'team', 'updatedAt'],
    description: 'Apps',
    relations: [{ flag: 'team', target: 'teams' }],
  },
  {
    name: 'environments',
    aliases: ['envs', 'environment', 'env'],
    singular: 'environment',
    path: '/environments',
    prefix: 'en-',
    columns: ['name', 'app', 'status', 'region', 'updatedAt'],
    description: 'Environments of apps',
    relations: [{ flag: 'app', target: 'apps' }],
  },
  {
    name: 'deployments',
    aliases: ['deployment'],
    singular: 'deployment',
    path: '/deployments',
    columns: ['environment', 'status', 'commit', 'createdAt'],
    description: 'Deployments of environments',
    relations: [
      { flag: 'environment', target: 'environments', route: '/environments/{id}/deployments' },
      { flag: 'app', target: 'apps', through: 'environments' },
    ],
  },
  {
    name: 'domains',
    aliases: ['domain'],
    singular: 'domain',
    path: '/domains',
    prefix: 'do-',
    columns: ['hostname', 'environment', 'status', 'createdAt'],
    description: 'Domains',
    relations: [
      { flag: 'environment', target: 'environments' },
      { flag: 'app', target: 'apps', through: 'environments' },
    ],
  },
  {
    name: 'teams',
    aliases: ['team'],
    singular: 'team',
    path: '/teams',
    columns: ['name', 'plan', 'createdAt'],
    description: 'Teams',
  },
  {
    name: 'people',
    aliases: ['person'],
    singular: 'person',
    path: '/people',
    columns: ['name', 'email', 'role', 'team'],
    description: 'People',
    relations: [{ flag: 'team', target: 'teams' }],
  },
  {
    name: 'payment-methods',
    aliases: ['payment-method'],
    singular: 'payment method',
    path: '/payment-methods',
    columns: ['type', 'brand', 'last4', 'team', 'expiresAt'],
    description: 'Payment methods',
    relations: [{ flag: 'team', target: 'teams' }],
  },
];

/**
 * The cheapest request the platform documents: the first page of apps. Sent to check a
 * token (`auth login`, `auth status --check`) and to read the rate limit (`rate-limit
 * --refresh`), whose answers need only its status and headers.
 */
export const PROBE_PATH = '/apps';

export function findResource(nameOrAlias: string): Resource | undefined {
  return RESOURCES.find((r) => r.name === nameOrAlias || r.aliases.includes(nameOrAlias));
}

const PLAIN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/**
 * Why `id` cannot be a public ID of `resource`, or undefined when it can. Known prefixes
 * (ap-, en-, do-) are enforced; other IDs need only be plain.
 */
export function idProblem(resource: Resource, id: string): string | undefined {
  if (!PLAIN_ID.test(id)) {
    return `"${printable(id)}" is not a valid public ID: use letters, digits, "-" and "_" only`;
  }
  if (resource.prefix && !id.startsWith(resource.prefix)) {
    return `"${printable(id)}" is not ${article(resource.singular)} ${resource.singular} ID: ${resource.singular} IDs begin with "${resource.prefix}"`;
  }
  return undefined;
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? 'an' : 'a';
}

function printable(s: string): string {
  // Keep the message one harmless line whatever the user typed.
  return oneLine(s, 60);
}

// The one table of resources. Every `list`/`get` command, the completion candidates and
// the sandbox's collections are generated from it: a new resource is one entry here.

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
  /** Columns shown after `publicId` when present, in this order. */
  readonly columns: readonly string[];
  readonly description: string;
}

export const RESOURCES: readonly Resource[] = [
  {
    name: 'apps',
    aliases: ['app'],
    singular: 'app',
    path: '/apps',
    prefix: 'ap-',
    columns: ['name', 'status', 'region', 'team', 'updatedAt'],
    description: 'Apps',
  },
  {
    name: 'environments',
    aliases: ['envs', 'environment', 'env'],
    singular: 'environment',
    path: '/environments',
    prefix: 'en-',
    columns: ['name', 'app', 'status', 'region', 'updatedAt'],
    description: 'Environments of apps',
  },
  {
    name: 'deployments',
    aliases: ['deployment'],
    singular: 'deployment',
    path: '/deployments',
    columns: ['environment', 'status', 'commit', 'createdAt'],
    description: 'Deployments of environments',
  },
  {
    name: 'domains',
    aliases: ['domain'],
    singular: 'domain',
    path: '/domains',
    prefix: 'do-',
    columns: ['hostname', 'environment', 'status', 'createdAt'],
    description: 'Domains',
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
  },
  {
    name: 'payment-methods',
    aliases: ['payment-method'],
    singular: 'payment method',
    path: '/payment-methods',
    columns: ['type', 'brand', 'last4', 'team', 'expiresAt'],
    description: 'Payment methods',
  },
];

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
    return `"${id}" is not ${article(resource.singular)} ${resource.singular} ID: ${resource.singular} IDs begin with "${resource.prefix}"`;
  }
  return undefined;
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? 'an' : 'a';
}

function printable(s: string): string {
  // Keep the message one harmless line whatever the user typed.
  const clean = s.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return clean.length > 60 ? `${clean.slice(0, 59)}…` : clean;
}

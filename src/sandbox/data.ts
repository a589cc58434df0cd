// The seed data: teams, their people and payment methods, their apps, the environments of
// each app, and the deployments and domains of each environment. Deterministic for a seed:
// every value comes from one seeded PRNG and every time from one fixed epoch, never from
// the clock.

import type { JsonObject } from './exact-json.js';
import { Random } from './random.js';

/** Public ID prefixes. apps, environments and domains are the platform document's. */
export const PREFIXES: Readonly<Record<string, string>> = {
  apps: 'ap-',
  environments: 'en-',
  deployments: 'dp-',
  domains: 'do-',
  teams: 'te-',
  people: 'pe-',
  'payment-methods': 'pm-',
};

/** Every seeded time lies before this instant, so the data does not depend on the day. */
const EPOCH = Date.parse('2026-03-01T12:00:00Z');
const DAY = 86_400_000;
const ID_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

export const MIN_APPS = 96;

export type SeedData = Record<string, JsonObject[]>;

const TEAM_NAMES = ['Platform', 'Payments', 'Growth', 'Data', 'Mobile', 'Web', 'Infrastructure', 'Marketing', 'Support', 'Security'];
const FIRST = ['Ada', 'Ben', 'Chloé', 'Dmitri', 'Elif', 'Farah', 'Gustavo', 'Hana', 'Ivan', 'Jana', 'Kofi', 'Lena', 'Mateo', 'Nora', 'Oskar', 'Priya', 'Quentin', 'Rosa', 'Sven', 'Tomás', 'Uma', 'Viktor', 'Wen', 'Yusuf', 'Zoë'];
const LAST = ['Okafor', 'Lindqvist', 'Moreau', 'Tanaka', 'Kowalski', 'Haddad', 'Fernández', 'Novak', 'Schmidt', 'Rossi', 'Nguyen', 'Petrov', 'Jensen', 'Dubois', 'Silva', 'Mensah', 'Kaya', 'Byrne', 'Hoffmann', 'Costa'];
const APP_DOMAINS = ['billing', 'checkout', 'orders', 'inventory', 'search', 'auth', 'notifications', 'analytics', 'catalog', 'shipping', 'reviews', 'recommendations', 'media', 'reports', 'gateway', 'accounts', 'chat', 'scheduler', 'pricing', 'ledger', 'identity', 'feeds', 'email', 'exports', 'invoices', 'onboarding', 'payouts', 'loyalty'];
const APP_KINDS = ['api', 'web', 'worker', 'cron', 'admin', 'service', 'frontend', 'jobs', 'proxy', 'docs', 'dashboard'];
const REGIONS = ['eu-central', 'eu-west', 'us-east', 'us-west', 'ap-southeast'];
const RUNTIMES = ['node20', 'node22', 'python3.12', 'go1.23', 'ruby3.3', 'php8.3', 'static', 'docker'];
const COMMIT_MESSAGES = ['Fix flaky retry in webhook handler', 'Bump dependencies', 'Add pagination to list endpoint', 'Improve cache headers', 'Refactor config loading', 'Handle empty cart on checkout', 'Add health check endpoint', 'Update copy on landing page', 'Reduce cold start time', 'Log request IDs', 'Fix timezone bug in reports', 'Add feature flag for new editor', 'Tighten CSP', 'Migrate to new queue client', 'Revert "Enable HTTP/3"'];

function iso(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function slug(s: string): string {
  return s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

function byCreatedAt(a: JsonObject, b: JsonObject): number {
  const x = String(a.createdAt);
  const y = String(b.createdAt);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function generateSeedData(seed: number): SeedData {
  const rnd = new Random(seed);
  const used = new Set<string>();
  const id = (resource: string): string => {
    for (;;) {
      const candidate = `${PREFIXES[resource]}${rnd.chars(ID_ALPHABET, 10)}`;
      if (!used.has(candidate)) {
        used.add(candidate);
        return candidate;
      }
    }
  };
  const between = (from: number, to: number): number => from + Math.floor(rnd.next() * Math.max(0, to - from));

  const teamNames = rnd.shuffle(TEAM_NAMES).slice(0, 6);
  const teamCreated = teamNames.map(() => EPOCH - between(700 * DAY, 1000 * DAY)).sort((a, b) => a - b);
  const teams: JsonObject[] = teamNames.map((name, i) => ({
    publicId: id('teams'),
    name,
    slug: slug(name),
    plan: i === 0 ? 'enterprise' : rnd.weighted([['free', 2], ['pro', 4], ['business', 3], ['enterprise', 1]] as const),
    createdAt: iso(teamCreated[i] ?? EPOCH),
  }));
  const teamIds = teams.map((t) => String(t.publicId));

  const emails = new Set<string>();
  const person = (team: JsonObject, role: string, memberOf: string[], after: number): JsonObject => {
    const first = rnd.pick(FIRST);
    const last = rnd.pick(LAST);
    let email = `${slug(first)}.${slug(last)}@example.com`;
    for (let n = 2; emails.has(email); n++) email = `${slug(first)}.${slug(last)}${n}@example.com`;
    emails.add(email);
    return {
      publicId: id('people'),
      name: `${first} ${last}`,
      email,
      role,
      team: String(team.publicId),
      teams: memberOf,
      createdAt: iso(between(after, EPOCH - 5 * DAY)),
    };
  };
  const firstTeam = teams[0];
  if (!firstTeam) throw new Error('no teams');
  // The organisation's owner: the person the start token acts as, a member of every team.
  const people: JsonObject[] = [person(firstTeam, 'owner', teamIds, teamCreated[0] ?? EPOCH)];
  const peopleOfTeam = new Map<string, string[]>();
  for (const [i, team] of teams.entries()) {
    const tid = String(team.publicId);
    const members: string[] = [];
    const count = rnd.int(3, 5);
    for (let n = 0; n < count; n++) {
      const memberOf = [tid];
      if (rnd.chance(0.15)) {
        const other = rnd.pick(teamIds);
        if (other !== tid) memberOf.push(other);
      }
      const role = n === 0 ? 'admin' : rnd.weighted([['developer', 6], ['viewer', 2], ['billing', 1], ['admin', 1]] as const);
      const p = person(team, role, memberOf, teamCreated[i] ?? EPOCH);
      people.push(p);
      members.push(String(p.publicId));
    }
    peopleOfTeam.set(tid, members);
  }
  people.sort(byCreatedAt);

  const paymentMethods: JsonObject[] = [];
  for (const team of teams) {
    const count = team.plan === 'free' ? rnd.int(0, 1) : rnd.int(1, 2);
    for (let n = 0; n < count; n++) {
      const type = rnd.weighted([['card', 3], ['sepa_debit', 1]] as const);
      const card = type === 'card';
      const created = between(Date.parse(String(team.createdAt)), EPOCH - 10 * DAY);
      const expires = new Date(EPOCH + rnd.int(2, 48) * 30 * DAY);
      paymentMethods.push({
        publicId: id('payment-methods'),
        type,
        brand: card ? rnd.weighted([['visa', 5], ['mastercard', 4], ['amex', 1]] as const) : null,
        last4: rnd.chars('0123456789', 4),
        team: String(team.publicId),
        expiresAt: card ? `${expires.getUTCFullYear()}-${String(expires.getUTCMonth() + 1).padStart(2, '0')}` : null,
        isDefault: n === 0,
        createdAt: iso(created),
      });
    }
  }
  paymentMethods.sort(byCreatedAt);

  const appCount = MIN_APPS + rnd.int(0, 12);
  const names = new Set<string>();
  const apps: JsonObject[] = [];
  while (apps.length < appCount) {
    const name = `${rnd.pick(APP_DOMAINS)}-${rnd.pick(APP_KINDS)}`;
    if (names.has(name)) continue;
    names.add(name);
    const team = rnd.pick(teams);
    const created = between(Date.parse(String(team.createdAt)) + DAY, EPOCH - 3 * DAY);
    const status = rnd.weighted([['running', 70], ['stopped', 10], ['deploying', 8], ['failed', 6], ['sleeping', 6]] as const);
    apps.push({
      publicId: '',
      name,
      status,
      region: rnd.pick(REGIONS),
      team: String(team.publicId),
      runtime: rnd.pick(RUNTIMES),
      instances: status === 'stopped' || status === 'sleeping' ? 0 : rnd.int(1, 6),
      repository: `https://git.example.com/${String(team.slug)}/${name}`,
      createdAt: iso(created),
      updatedAt: iso(between(created, EPOCH)),
    });
  }
  apps.sort(byCreatedAt);
  for (const app of apps) app.publicId = id('apps');

  const environments: JsonObject[] = [];
  const deployments: JsonObject[] = [];
  const domains: JsonObject[] = [];
  for (const app of apps) {
    const appCreated = Date.parse(String(app.createdAt));
    const authors = peopleOfTeam.get(String(app.team)) ?? [];
    const kinds = ['production'];
    if (rnd.chance(0.75)) kinds.push('staging');
    if (rnd.chance(0.25)) kinds.push('preview');
    if (rnd.chance(0.15)) kinds.push('development');
    for (const kind of kinds) {
      const production = kind === 'production';
      const created = between(appCreated, Math.min(appCreated + 30 * DAY, EPOCH - DAY));
      const status = production
        ? String(app.status)
        : rnd.weighted([['running', 6], ['stopped', 2], ['sleeping', 2], ['deploying', 1], ['failed', 1]] as const);
      const host = production ? `${String(app.name)}.hostctl.test` : `${String(app.name)}-${kind}.hostctl.test`;
      const env: JsonObject = {
        publicId: id('environments'),
        name: kind,
        app: String(app.publicId),
        status,
        region: rnd.chance(0.85) ? String(app.region) : rnd.pick(REGIONS),
        url: `https://${host}`,
        createdAt: iso(created),
        updatedAt: iso(between(created, EPOCH)),
      };
      environments.push(env);

      const count = production ? rnd.int(2, 8) : kind === 'staging' ? rnd.int(1, 5) : rnd.int(1, 3);
      let at = created;
      for (let n = 0; n < count; n++) {
        at = between(at + 60_000, Math.min(at + 60 * DAY, EPOCH - 60_000));
        const latest = n === count - 1;
        const dstatus =
          latest && status === 'deploying'
            ? rnd.pick(['queued', 'building'])
            : latest && status === 'failed'
              ? 'failed'
              : rnd.weighted([['succeeded', 17], ['failed', 2], ['canceled', 1]] as const);
        const done = dstatus !== 'queued' && dstatus !== 'building';
        deployments.push({
          publicId: id('deployments'),
          environment: String(env.publicId),
          app: String(app.publicId),
          status: dstatus,
          commit: rnd.chars('0123456789abcdef', 40),
          message: rnd.pick(COMMIT_MESSAGES),
          author: authors.length > 0 ? rnd.pick(authors) : null,
          createdAt: iso(at),
          finishedAt: done ? iso(at + rnd.int(40, 400) * 1000) : null,
        });
      }

      const hostnames = [host];
      if (production && rnd.chance(0.5)) {
        const team = teams.find((t) => t.publicId === app.team);
        hostnames.push(`${String(app.name).split('-')[0]}.${String(team?.slug ?? 'acme')}.example.com`);
      }
      if (!production && kind !== 'staging' && rnd.chance(0.5)) hostnames.pop();
      for (const hostname of hostnames) {
        const dstatus = hostname.endsWith('.hostctl.test')
          ? 'active'
          : rnd.weighted([['active', 17], ['pending_verification', 2], ['failed', 1]] as const);
        domains.push({
          publicId: id('domains'),
          hostname,
          environment: String(env.publicId),
          app: String(app.publicId),
          status: dstatus,
          tls: dstatus === 'active' ? 'issued' : 'pending',
          createdAt: iso(between(created, EPOCH)),
        });
      }
    }
  }
  environments.sort(byCreatedAt);
  deployments.sort(byCreatedAt);
  domains.sort(byCreatedAt);

  return {
    teams,
    people,
    'payment-methods': paymentMethods,
    apps,
    environments,
    deployments,
    domains,
  };
}

/** The person the start token acts as: the organisation's owner. */
export function ownerOf(data: SeedData): string | undefined {
  const owner = data.people?.find((p) => p.role === 'owner');
  return owner ? String(owner.publicId) : undefined;
}

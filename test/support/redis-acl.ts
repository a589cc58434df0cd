// The Redis user docs/fleet.md tells a team to give hostctl: the arguments of that page's
// one `ACL SETUSER` line, its password filled in, for the tests that run hostctl as that
// user (test/unit/redis-acl.test.ts, test/e2e/fleet-tenants.test.ts).

import { readFileSync } from 'node:fs';

export function documentedAcl(password: string): string[] {
  const page = readFileSync(new URL('../../docs/fleet.md', import.meta.url), 'utf8');
  const lines = page.split('\n').filter((l) => l.startsWith('ACL SETUSER '));
  if (lines.length !== 1) throw new Error(`docs/fleet.md has ${lines.length} ACL SETUSER lines, not one.`);
  return lines[0]!.split(/\s+/).slice(2).map((a) => (a === '>PASSWORD' ? `>${password}` : a));
}

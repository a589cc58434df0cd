// main() builds only the branch of the program that its words name; whatever names none,
// or asks for help, gets the whole program (suggestions, `hostctl help <anything>`).

import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';

const names = (words?: string[]) => buildProgram(undefined, words).commands.map((c) => c.name());

describe('buildProgram(rt, words)', () => {
  it('builds the command the words name, by name or alias, and no other', () => {
    expect(names(['apps', 'list', '--json'])).toEqual(['apps']);
    expect(names(['envs', 'get', 'en-1'])).toEqual(['environments']);
    expect(names(['--profile', 'staging', 'auth', 'logout'])).toEqual(['auth']);
  });

  it('builds every command for the top-level help, a typo, help, or words after --', () => {
    const all = names();
    expect(all.length).toBeGreaterThan(10);
    expect(names(['--help'])).toEqual(all);
    expect(names(['aps', 'list'])).toEqual(all);
    expect(names(['help', 'apps'])).toEqual(all);
    expect(names(['--', 'apps'])).toEqual(all);
  });

  it('a flag value or a subcommand that is also a command name builds that branch too, which changes nothing', () => {
    expect(names(['--profile', 'apps', 'auth', 'logout'])).toEqual(['auth', 'apps']);
    expect(names(['auth', 'status'])).toEqual(['auth', 'status']);
  });
});

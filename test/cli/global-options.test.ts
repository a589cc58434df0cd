// The global options are read once, before any command runs: a bad value is the same usage
// error (exit 2, one sentence and the next step, nothing on stdout) whichever command it is
// given to, a command that sends no request included. In-process (test/support/inproc.ts).

import { expect } from 'vitest';
import { cliTest } from '../support/fixtures.js';

const test = cliTest();

const BAD: readonly { args: string[]; env?: Record<string, string>; message: RegExp }[] = [
  { args: ['config', 'path', '--timeout', 'abc'], message: /^hostctl: --timeout takes a number of seconds, not "abc"\.\nFor example: --timeout 30\n$/ },
  { args: ['version', '--retries', '11'], message: /^hostctl: --retries takes a whole number from 0 to 10, not "11"\.\n/ },
  { args: ['config', 'list', '--max-wait', '-1'], message: /^hostctl: --max-wait takes a number of seconds, not "-1"\.\n/ },
  { args: ['config', 'path', '--fields', ','], message: /^hostctl: --fields needs at least one field name\.\n/ },
  { args: ['version', '--json', '-o', 'tsv'], message: /^\{"error":\{"code":"usage","message":"--json and -o tsv ask for two different formats\."/ },
  { args: ['config', 'path'], env: { HOSTCTL_CACHE: 'forever' }, message: /^hostctl: HOSTCTL_CACHE takes a duration such as 30s, 10m or 1h \(at most 7d\), not "forever"\.\n/ },
  { args: ['version'], env: { HOSTCTL_INTERACTIVE: 'yes' }, message: /^hostctl: HOSTCTL_INTERACTIVE takes 1 or 0, not "yes"\.\n/ },
  { args: ['config', 'path'], env: { HOSTCTL_ACCESSIBLE: 'maybe' }, message: /^hostctl: HOSTCTL_ACCESSIBLE takes 1 or 0, not "maybe"\.\n/ },
];

test('a bad global option or variable is a usage error before any command runs, one that sends nothing included', async ({ hostctl }) => {
  for (const { args, env, message } of BAD) {
    const r = await hostctl(args, env);
    const run = `${args.join(' ')} ${JSON.stringify(env ?? {})}`;
    expect(r.code, run).toBe(2);
    expect(r.stdout, run).toBe('');
    expect(r.stderr, run).toMatch(message);
  }
});

test('good values of the same options leave those commands as they were', async ({ hostctl }) => {
  for (const args of [['config', 'path', '--timeout', '0.5', '--retries', '0', '--max-wait', '0', '--fields', 'path'], ['version', '--cache', '10m']]) {
    const r = await hostctl(args, { HOSTCTL_INTERACTIVE: '0', HOSTCTL_ACCESSIBLE: '1' });
    expect(r.code, args.join(' ')).toBe(0);
    expect(r.stderr, args.join(' ')).toBe('');
  }
});

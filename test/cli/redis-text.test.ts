// A hostile shared store's own words (issue 42): Redis error text is server text, and
// reaches the terminal only as all server text does (src/output/sanitize.ts): no title
// change, no screen clear, no hyperlink, one line. A fake Redis on loopback
// (test/support/resp-server.ts) answers every command with such an error, as a real Redis
// never would; one reply per command, so that hostctl meets the error at once, not a
// command left unanswered until its timeout.

import { describe, expect } from 'vitest';
import { cliTest } from '../support/fixtures.js';
import { reply, startFakeRedis } from '../support/resp-server.js';

/** A title change, a screen clear, an OSC 8 link and a line break, inside one RESP error line. */
const HOSTILE = 'ERR \u001b]0;pwned title\u0007\u001b[2J\u001b[H\u001b]8;;https://evil.invalid/\u0007click here\u001b]8;;\u0007 and \u009b31mred\u001b[0m\u0085more';

const test = cliTest({ sandbox: ['--rate-limit', '1000'], runOnSandbox: true })
  // eslint-disable-next-line no-empty-pattern -- vitest reads what a fixture needs from an object pattern: `{}` is "nothing".
  .extend('hostileRedis', async ({}, { onCleanup }) => {
    const redis = await startFakeRedis({ answer: () => reply.error(HOSTILE) });
    onCleanup(() => redis.close());
    return redis.url;
  });

/** Whatever a terminal would act on: ESC, BEL, CSI, C1 controls and line breaks inside a message. */
function expectInert(text: string): void {
  expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  expect(text).not.toContain('evil.invalid/\u0007');
}

describe('a Redis whose errors carry terminal controls', () => {
  test('the fault warning shows its text inert, on one line, and the command goes on (exit 0)', async ({ hostctl, hostileRedis }) => {
    const r = await hostctl(['apps', 'list', '-o', 'tsv'], { HOSTCTL_REDIS_URL: hostileRedis });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^hostctl: warning: the shared store at 127\.0\.0\.1:\d+ cannot be used \(ERR .*click here and red ?more\); this run uses this machine's own rate budget\.$/);
    expectInert(r.stderr);
  });

  test('with HOSTCTL_REDIS_REQUIRED=1 the exit-6 error shows it inert too', async ({ hostctl, hostileRedis }) => {
    for (const extra of [[], ['--json']]) {
      const r = await hostctl(['apps', 'list', ...extra], { HOSTCTL_REDIS_URL: hostileRedis, HOSTCTL_REDIS_REQUIRED: '1' });
      expect(r.code, r.stderr).toBe(6);
      expect(r.stderr).toContain('click here');
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expectInert(r.stderr.trimEnd());
    }
  });
});

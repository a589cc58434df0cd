// Every example of the help topics (`hostctl help <topic>`, the lines after "$ ") runs as
// shown, in bash, with this clone's hostctl on the PATH, against a sandbox started here.
// The one example that names a real platform (https://api.example.com/v1, $PLATFORM_TOKEN)
// runs against the sandbox instead; a `staging` profile exists, as that example assumes.

import { describe, expect } from 'vitest';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, runProcess } from '../support/cli.js';
import { e2eTest } from '../support/fixtures.js';
import { TOPIC_TEXT } from '../../src/help/topics.js';

/** The example lines of a topic, in order. */
export function examplesOf(text: string): string[] {
  return [...text.matchAll(/^\s*\$ (.+)$/gm)].map((m) => m[1] ?? '');
}

/**
 * One bash script running the lines in order; after each line whose status the next line
 * does not read itself (`case $? in …`), a failure is reported with the line.
 */
function scriptOf(lines: readonly string[]): string {
  const checked = lines.map((line, k) => {
    if (/\$\?/.test(lines[k + 1] ?? '')) return line;
    return `${line}\n__s=$?; [ $__s -eq 0 ] || echo "example failed with exit $__s: ${line.replace(/[\\"$`]/g, '\\$&')}" >&2`;
  });
  return ['set -o pipefail', "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT", ...checked, 'echo __done'].join('\n');
}

const test = e2eTest({ sandbox: ['--rate-limit', '100000'] });

describe('the examples of the help topics', () => {
  test('every topic has examples, and none uses a placeholder the shell would misread', () => {
    for (const [topic, text] of Object.entries(TOPIC_TEXT)) {
      const lines = examplesOf(text);
      expect(lines.length, topic).toBeGreaterThan(0);
      for (const line of lines) expect(line, topic).not.toMatch(/<[a-z-]+>|…/);
    }
  });

  test.for(Object.keys(TOPIC_TEXT))('hostctl help %s: every example runs as shown', async (topic, { sandbox, home, config, newDir }) => {
    const [bin, cwd] = [newDir('hostctl-help-bin-'), newDir('hostctl-help-work-')];
    symlinkSync(BIN, join(bin, 'hostctl'));
    const env = {
      HOME: home.path,
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      HOSTCTL_CONFIG_DIR: config.path,
      HOSTCTL_BASE_URL: sandbox.baseUrl,
      HOSTCTL_TOKEN: sandbox.token,
      PLATFORM_TOKEN: sandbox.token,
    };
    // What `hostctl config set profiles.staging.baseUrl …` writes, without a run of its own.
    writeFileSync(join(config.path, 'config.json'), JSON.stringify({ profiles: { staging: { baseUrl: sandbox.baseUrl } } }), { mode: 0o600 });
    const lines = examplesOf(TOPIC_TEXT[topic] ?? '').map((l) => l.replaceAll('https://api.example.com/v1', sandbox.baseUrl));
    const r = await runProcess('bash', ['-c', scriptOf(lines)], { cwd, env, timeoutMs: 60_000 });
    expect(r.stderr).not.toMatch(/example failed/);
    expect(r.stdout).toMatch(/__done\n$/);
  });
});

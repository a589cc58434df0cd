// Every example of the help topics (`hostctl help <topic>`, the lines after "$ ") runs as
// shown, in bash, with this clone's hostctl on the PATH, against a sandbox started here.
// The one example that names a real platform (https://api.example.com/v1, $PLATFORM_TOKEN)
// runs against the sandbox instead; a `staging` profile exists, as that example assumes.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, runProcess, tmpDir } from '../support/cli.js';
import { startSandboxHere, type LocalSandbox } from '../support/sandbox-here.js';
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

describe('the examples of the help topics', () => {
  let sandbox: LocalSandbox;
  beforeAll(async () => {
    sandbox = await startSandboxHere({ rateLimit: 100_000 });
  });
  afterAll(() => sandbox.stop());

  it('every topic has examples, and none uses a placeholder the shell would misread', () => {
    for (const [topic, text] of Object.entries(TOPIC_TEXT)) {
      const lines = examplesOf(text);
      expect(lines.length, topic).toBeGreaterThan(0);
      for (const line of lines) expect(line, topic).not.toMatch(/<[a-z-]+>|…/);
    }
  });

  it.each(Object.keys(TOPIC_TEXT))('hostctl help %s: every example runs as shown', async (topic) => {
    const dir = tmpDir('hostctl-help-examples-');
    try {
      const [home, bin, cwd, config] = ['home', 'bin', 'work', 'config'].map((d) => join(dir.path, d));
      for (const d of [home, bin, cwd, config]) mkdirSync(d as string);
      symlinkSync(BIN, join(bin as string, 'hostctl'));
      const env = {
        HOME: home,
        PATH: `${bin}:${process.env.PATH ?? ''}`,
        HOSTCTL_CONFIG_DIR: config,
        HOSTCTL_BASE_URL: sandbox.baseUrl,
        HOSTCTL_TOKEN: sandbox.token,
        PLATFORM_TOKEN: sandbox.token,
      };
      const setup = await runProcess('bash', ['-c', `hostctl config set profiles.staging.baseUrl "$HOSTCTL_BASE_URL"`], { cwd, env });
      expect(setup.code, setup.stderr).toBe(0);
      const lines = examplesOf(TOPIC_TEXT[topic] ?? '').map((l) => l.replaceAll('https://api.example.com/v1', sandbox.baseUrl));
      const r = await runProcess('bash', ['-c', scriptOf(lines)], { cwd, env, timeoutMs: 60_000 });
      expect(r.stderr).not.toMatch(/example failed/);
      expect(r.stdout).toMatch(/__done\n$/);
    } finally {
      dir.cleanup();
    }
  });
});

// The build is silent unless it fails: `npm install` runs it (prepare) with the terminal as
// its stderr, and its training runs of hostctl must not show hostctl's spinner or notes
// among npm's output. Built into a directory of its own (--out), not over dist/.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runProcess, tmpDir } from '../support/cli.js';

describe('node scripts/build.mjs on a terminal', () => {
  it('writes nothing but what fails', async () => {
    const dir = tmpDir('hostctl-build-quiet-');
    try {
      const out = join(dir.path, 'dist');
      const command = `stty cols 80 rows 24 2>/dev/null; '${process.execPath}' scripts/build.mjs --out '${out}'`;
      // CI=true turns spinners off (see IO): this is about a person's terminal.
      const r = await runProcess('script', ['-qfec', command, '/dev/null'], { cwd: ROOT, timeoutMs: 120_000, env: { TERM: 'xterm-256color', CI: undefined } });
      expect(r.code, r.stdout).toBe(0);
      expect(existsSync(join(out, 'hostctl.cjs'))).toBe(true);
      expect(r.stdout.replace(/\r?\n/g, '')).toBe('');
    } finally {
      dir.cleanup();
    }
  });
});

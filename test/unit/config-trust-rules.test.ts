// Who may own what hostctl reads from the config dir (src/config/trust.ts), as pure rules
// over a file's owner and mode: the config names where the token goes, so one that another
// user owns or can write is refused, with the command that fixes it, ready to paste.

import { chmodSync, mkdirSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { checkConfigDir, checkOwnership, shellQuote } from '../../src/config/trust.js';
import { UsageError } from '../../src/errors.js';
import { tmpDir } from '../support/cli.js';

const posix = process.platform !== 'win32';
// The rules as a user who is not root sees them, whoever runs the test: root owns what
// root makes, and may own the config dir of anyone.
const me = 1000;
const someoneElse = 65534;
const PATH = '/home/me/.config/hostctl';

function stats(uid: number, mode: number): Stats {
  return { uid, mode: 0o040000 | mode } as Stats;
}

function refusal(uid: number, mode: number, path = PATH): UsageError | undefined {
  try {
    checkOwnership(stats(uid, mode), path, 'the config directory');
    return undefined;
  } catch (err) {
    if (err instanceof UsageError) return err;
    throw err;
  }
}

describe.runIf(posix)('checkOwnership', () => {
  let getuid: { mockRestore(): void } | undefined;
  beforeAll(() => {
    getuid = vi.spyOn(process, 'getuid').mockReturnValue(me);
  });
  afterAll(() => getuid?.mockRestore());

  it("accepts the user's own, or root's, when only they can write it", () => {
    for (const mode of [0o700, 0o755, 0o644, 0o600, 0o711]) {
      expect(refusal(me, mode), mode.toString(8)).toBeUndefined();
      expect(refusal(0, mode), mode.toString(8)).toBeUndefined();
    }
  });

  it("refuses another user's, naming its uid and the chown that takes it, and where to point instead", () => {
    const err = refusal(someoneElse, 0o700);
    expect(err?.message).toBe(
      `Refusing the config directory ${PATH}: it belongs to another user (uid ${someoneElse}), who could change where hostctl sends your token; take it with "sudo chown ${me} ${PATH}" or use a directory of your own.`,
    );
    expect(err?.hint).toMatch(/^Point HOSTCTL_CONFIG_DIR at a directory only you can write/);
  });

  it('refuses one that the group or others can write, with its mode in four digits and the chmod that fixes it', () => {
    for (const [mode, shown] of [[0o720, '0720'], [0o702, '0702'], [0o777, '0777'], [0o660, '0660'], [0o022, '0022']] as const) {
      const err = refusal(me, mode);
      expect(err?.message, shown).toBe(
        `Refusing the config directory ${PATH}: other users can write to it (mode ${shown}), so they could change where hostctl sends your token; fix it with "chmod go-w ${PATH}".`,
      );
      expect(err?.hint).toBe('hostctl, like ssh, only reads a config that no one else can change.');
    }
  });
});

describe('shellQuote', () => {
  it('leaves a plain path bare and quotes any other, quotes inside included, as a shell reads it back', () => {
    expect(shellQuote('/a/B_9.x/:=@%+-')).toBe('/a/B_9.x/:=@%+-');
    expect(shellQuote('/tmp/my dir')).toBe("'/tmp/my dir'");
    expect(shellQuote("/tmp/it's")).toBe("'/tmp/it'\\''s'");
    expect(shellQuote("/tmp/a'b'c")).toBe("'/tmp/a'\\''b'\\''c'");
    expect(shellQuote('x;rm -rf ~')).toBe("'x;rm -rf ~'");
    expect(shellQuote('')).toBe("''");
  });
});

describe.runIf(posix)('checkConfigDir', () => {
  let scratch: { path: string; cleanup(): void };
  beforeEach(() => {
    scratch = tmpDir('hostctl-trust-rules-');
  });
  afterEach(() => scratch.cleanup());

  it('passes a missing directory (made private when first written) and refuses a writable one by its path', () => {
    expect(() => checkConfigDir(join(scratch.path, 'missing'))).not.toThrow();
    const dir = join(scratch.path, 'open dir');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    expect(() => checkConfigDir(dir)).toThrow(
      `Refusing the config directory ${dir}: other users can write to it (mode 0777), so they could change where hostctl sends your token; fix it with "chmod go-w '${dir}'".`,
    );
    chmodSync(dir, 0o700);
    expect(() => checkConfigDir(dir)).not.toThrow();
  });
});

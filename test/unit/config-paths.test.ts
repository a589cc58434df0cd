// Where a rejected-token mark goes when the state file cannot be written (src/config/paths.ts):
// the lockout guard must find a place that is the user's own, in a known order, and never
// the config dir it could not write.

import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { configDir, rejectedFallbackDirs } from '../../src/config/paths.js';

const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
const perUser = `hostctl-${uid ?? 'user'}`;

describe('rejectedFallbackDirs', () => {
  it('the state dir, the runtime dir, then a per-user dir under TMPDIR, in that order', () => {
    const env = { HOSTCTL_CONFIG_DIR: '/c/hostctl', HOME: '/h', XDG_STATE_HOME: '/s', XDG_RUNTIME_DIR: '/r', TMPDIR: '/t' };
    expect(rejectedFallbackDirs(env)).toEqual(['/s/hostctl', '/r/hostctl', join('/t', perUser)]);
  });

  it('without XDG_STATE_HOME the state dir is under HOME; without XDG_RUNTIME_DIR there is none; without TMPDIR the system\'s', () => {
    expect(rejectedFallbackDirs({ HOSTCTL_CONFIG_DIR: '/c/hostctl', HOME: '/h' })).toEqual([join('/h', '.local', 'state', 'hostctl'), join(tmpdir(), perUser)]);
  });

  it('without HOME or XDG_STATE_HOME, only the per-user temporary dir', () => {
    expect(rejectedFallbackDirs({ HOSTCTL_CONFIG_DIR: '/c/hostctl', TMPDIR: '/t' })).toEqual([join('/t', perUser)]);
  });

  it('never the config dir itself (the place that could not be written)', () => {
    const env = { XDG_CONFIG_HOME: '/s', HOME: '/h', XDG_STATE_HOME: '/s', TMPDIR: '/t' };
    expect(configDir(env)).toBe('/s/hostctl');
    expect(rejectedFallbackDirs(env)).toEqual([join('/t', perUser)]);
  });
});

describe('configDir', () => {
  it('HOSTCTL_CONFIG_DIR first, whatever else is set', () => {
    expect(configDir({ HOSTCTL_CONFIG_DIR: '/c', XDG_CONFIG_HOME: '/x', HOME: '/h' })).toBe('/c');
  });

  it.runIf(process.platform === 'linux')('then XDG_CONFIG_HOME, then ~/.config (Linux)', () => {
    expect(configDir({ XDG_CONFIG_HOME: '/x', HOME: '/h' })).toBe('/x/hostctl');
    expect(configDir({ HOME: '/h' })).toBe('/h/.config/hostctl');
  });
});

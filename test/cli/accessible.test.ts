// Accessible output and the colour conventions (issue 27), in-process on a fake terminal
// (test/support/inproc.ts runInPty) against the in-process sandbox. The same on a real
// pseudo-terminal, through the built CLI: test/e2e/accessible.test.ts.

import { describe, expect } from 'vitest';
import { cliTest, type Env } from '../support/fixtures.js';
import { runCli, runInPty } from '../support/inproc.js';
import { smallWorld } from '../support/small-world.js';
import { colorWanted } from '../../src/io.js';

const SGR_COLOUR = /\u001b\[(?:3[0-7]|9[0-7])m/;
const SPINNER_FRAME = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;
/** Cursor movement, line erasing, cursor hiding: what a redraw in place is made of. */
const CURSOR_MOVE = /\u001b\[[0-9;?]*[A-HJKSTfhlsu]/;
/** A carriage return that is not the terminal's own end of line (CR LF). */
const BARE_CR = /\r(?!\n)/;
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');

/** Twelve apps in pages of five: a walk of three pages, as many as a change of state needs. */
const APPS = Array.from({ length: 12 }, (_, i) => ({
  publicId: `ap-access${String(i).padStart(4, '0')}`,
  name: `shop-${i}`,
  status: i % 4 === 3 ? 'stopped' : 'running',
  region: 'eu-west',
  updatedAt: `2026-01-${String(10 + i)}T10:00:00Z`,
}));

// CI=true turns spinners off (see IO); these are about a person's terminal.
const test = cliTest({ sandbox: ['--rate-limit', '100000', '--page-size', '5', ...smallWorld(undefined, { apps: APPS })] })
  .extend('env', ({ sandboxEnv }) => (extra: Env = {}): Env => ({ ...sandboxEnv, CI: undefined, ...extra }));

describe('colour conventions', () => {
  test('the precedence: FORCE_COLOR, --no-color, NO_COLOR, CLICOLOR_FORCE, CLICOLOR=0, TERM=dumb, then the terminal', () => {
    expect(colorWanted({}, undefined)).toBeUndefined();
    expect(colorWanted({ FORCE_COLOR: '1' }, false)).toBe(true);
    expect(colorWanted({ FORCE_COLOR: '0', CLICOLOR_FORCE: '1' }, undefined)).toBe(false);
    expect(colorWanted({ CLICOLOR_FORCE: '1' }, false)).toBe(false);
    expect(colorWanted({ CLICOLOR_FORCE: '1', NO_COLOR: '1' }, undefined)).toBe(false);
    expect(colorWanted({ CLICOLOR_FORCE: '1', CLICOLOR: '0' }, undefined)).toBe(true);
    expect(colorWanted({ CLICOLOR_FORCE: '0' }, undefined)).toBeUndefined();
    expect(colorWanted({ CLICOLOR_FORCE: '1', TERM: 'dumb' }, undefined)).toBe(true);
    expect(colorWanted({ CLICOLOR: '0' }, undefined)).toBe(false);
    expect(colorWanted({ CLICOLOR: '1' }, undefined)).toBeUndefined();
    expect(colorWanted({ TERM: 'dumb' }, undefined)).toBe(false);
  });

  test("each rule's values: which turn colour on, which off, and which count as not set", () => {
    // FORCE_COLOR as chalk reads it: 0 and false off, any other value on, empty included.
    for (const value of ['0', 'false']) expect(colorWanted({ FORCE_COLOR: value }, undefined)).toBe(false);
    for (const value of ['1', '3', 'true', '']) expect(colorWanted({ FORCE_COLOR: value, NO_COLOR: '1' }, undefined)).toBe(true);
    expect(colorWanted({}, true)).toBeUndefined();
    // NO_COLOR: any value but the empty one (no-color.org).
    for (const value of ['1', '0', 'false']) expect(colorWanted({ NO_COLOR: value }, undefined)).toBe(false);
    expect(colorWanted({ NO_COLOR: '' }, undefined)).toBeUndefined();
    // CLICOLOR_FORCE: any value but 0 and the empty one.
    for (const value of ['1', 'yes']) expect(colorWanted({ CLICOLOR_FORCE: value }, undefined)).toBe(true);
    for (const value of ['0', '']) expect(colorWanted({ CLICOLOR_FORCE: value }, undefined)).toBeUndefined();
    // CLICOLOR and TERM: only 0 and dumb.
    for (const CLICOLOR of ['', '1', 'false']) expect(colorWanted({ CLICOLOR }, undefined)).toBeUndefined();
    for (const TERM of ['', 'xterm-256color', 'linux']) expect(colorWanted({ TERM }, undefined)).toBeUndefined();
  });

  test('CLICOLOR=0 turns colour off on a terminal; CLICOLOR_FORCE=1 turns it on into a pipe', async ({ env }) => {
    const tty = await runCli(['apps', 'list', '-o', 'table'], { env: env(), columns: 200 });
    expect(tty.stdout).toMatch(SGR_COLOUR);
    const off = await runCli(['apps', 'list', '-o', 'table'], { env: env({ CLICOLOR: '0' }), columns: 200 });
    expect(off.code).toBe(0);
    expect(off.stdout).not.toMatch(SGR_COLOUR);
    const piped = await runCli(['apps', 'list', '-o', 'table'], { env: env({ CLICOLOR_FORCE: '1' }) });
    expect(piped.stdout).toMatch(SGR_COLOUR);
    const noColor = await runCli(['apps', 'list', '-o', 'table'], { env: env({ CLICOLOR_FORCE: '1', NO_COLOR: '1' }) });
    expect(noColor.stdout).not.toMatch(SGR_COLOUR);
  });

  test('TERM=dumb: no colour and no spinner, even with colour forced', async ({ env }) => {
    const normal = await runInPty(['apps', 'list', '--all'], { env: env() });
    expect(normal.stdout).toMatch(SPINNER_FRAME);
    const dumb = await runInPty(['apps', 'list', '--all'], { env: env({ TERM: 'dumb' }) });
    expect(dumb.code).toBe(0);
    expect(dumb.stdout).not.toMatch(SGR_COLOUR);
    expect(dumb.stdout).not.toMatch(SPINNER_FRAME);
    expect(dumb.stdout).not.toMatch(CURSOR_MOVE);
    const forced = await runInPty(['apps', 'list', '--all'], { env: env({ TERM: 'dumb', CLICOLOR_FORCE: '1' }) });
    expect(forced.stdout).toMatch(SGR_COLOUR);
    expect(forced.stdout).not.toMatch(SPINNER_FRAME);
    expect(forced.stdout).not.toMatch(CURSOR_MOVE);
  });
});

describe('HOSTCTL_ACCESSIBLE and the config setting accessible', () => {
  test('progress is one plain line per change of state, tables use " | ", nothing is redrawn', async ({ env }) => {
    const control = await runInPty(['apps', 'list', '--all'], { env: env() });
    expect(control.stdout).toMatch(CURSOR_MOVE);
    const r = await runInPty(['apps', 'list', '--all'], { env: env({ HOSTCTL_ACCESSIBLE: '1' }) });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(SPINNER_FRAME);
    expect(r.stdout).not.toMatch(CURSOR_MOVE);
    expect(r.stdout).not.toMatch(BARE_CR);
    // Fetching, then the first page's count: later pages are the same state, not new lines.
    const progress = r.stdout.split('\r\n').filter((l) => l.startsWith('Fetching apps…'));
    expect(progress).toEqual(['Fetching apps…', expect.stringMatching(/^Fetching apps… page 1, 5 so far$/) as unknown]);
    const header = r.stdout.split('\r\n').find((l) => l.includes('PUBLIC ID'));
    expect(plain(header ?? '')).toMatch(/^PUBLIC ID +\| NAME +\| /);
    // The status keeps its word (and may keep its colour).
    expect(r.stdout).toMatch(/running/);
  });

  test('the config setting does the same; HOSTCTL_ACCESSIBLE=0 overrides it; another value is a usage error', async ({ env }) => {
    expect((await runCli(['config', 'set', 'accessible', 'true'], { env: env() })).code).toBe(0);
    expect((await runCli(['config', 'get', 'accessible'], { env: env() })).stdout).toBe('true\n');
    const fromConfig = await runInPty(['apps', 'list'], { env: env() });
    expect(fromConfig.stdout).not.toMatch(SPINNER_FRAME);
    expect(plain(fromConfig.stdout)).toMatch(/PUBLIC ID +\| NAME/);
    const overridden = await runInPty(['apps', 'list', '--all'], { env: env({ HOSTCTL_ACCESSIBLE: '0' }) });
    expect(overridden.stdout).toMatch(SPINNER_FRAME);
    expect(overridden.stdout).not.toMatch(/\| NAME/);
    const bad = await runInPty(['apps', 'list'], { env: env({ HOSTCTL_ACCESSIBLE: 'yes please' }) });
    expect(bad.code).toBe(2);
    expect(bad.stdout).toMatch(/HOSTCTL_ACCESSIBLE takes 1 or 0/);
    const badValue = await runCli(['config', 'set', 'accessible', 'maybe'], { env: env() });
    expect(badValue.code).toBe(2);
  });
});

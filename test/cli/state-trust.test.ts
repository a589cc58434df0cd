// Issue 31, the state file, in-process: one that cannot be parsed fails closed (no token
// is sent that may be marked in it, and it is never replaced); what the API says is
// remembered within bounds; Tab answers whatever the file holds. (A state file that
// cannot be read, root's after `sudo -E`: test/e2e/trust-dirs.test.ts.)

import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { cliTest } from '../support/fixtures.js';
import { answer, behaviours, expectCleanFailure } from '../support/hostile-server.js';

const TOKEN = 'hc_statetrusttoken000000000000001';

const test = cliTest();

describe('the state file', () => {
  test('a damaged state.json fails closed: no token is sent, exit 4 says why, and the file is kept', async ({ hostctl, config, hostile }) => {
    const server = await hostile(behaviours.ok);
    const state = join(config.path, 'state.json');
    // What a mark looks like, cut short: which token it marked cannot be known.
    const damaged = '{"rejected":{"9f2c41d0aa":{"at":1764000000000,"sta';
    writeFileSync(state, damaged, { mode: 0o600 });
    const r = await hostctl(['apps', 'list', '--base-url', server.baseUrl], { HOSTCTL_TOKEN: TOKEN });
    expectCleanFailure(r, 4, TOKEN);
    expect(r.stderr).toContain(state);
    expect(server.seen).toHaveLength(0);
    expect(readFileSync(state, 'utf8')).toBe(damaged);
  });

  test('IDs of 512 KiB from the API are not remembered, and the file stays within 1 MiB', async ({ hostctl, config, hostile }) => {
    const huge = Array.from({ length: 4 }, (_, i) => ({ publicId: `ap-${String(i).padStart(2, '0')}${'x'.repeat(512 * 1024)}`, name: 'big' }));
    const server = await hostile(answer(200, { 'content-type': 'application/json' }, JSON.stringify(huge)));
    await hostctl(['apps', 'list', '--json', '--base-url', server.baseUrl], { HOSTCTL_TOKEN: TOKEN });
    expect(server.seen).toHaveLength(1);
    const state = join(config.path, 'state.json');
    const size = existsSync(state) ? statSync(state).size : 0;
    expect(size).toBeLessThanOrEqual(1024 * 1024);
    if (size > 0) expect(readFileSync(state, 'utf8')).not.toMatch(/x{200}/);
  });

  test('many plain IDs with long names: a bounded number, names cut, the file within 1 MiB', async ({ hostctl, config, hostile }) => {
    // 3,500 names of 300 characters: more than 1 MiB even once each is cut to 200.
    const many = Array.from({ length: 3500 }, (_, i) => ({ publicId: `ap-${String(i).padStart(5, '0')}${'a'.repeat(120)}`, name: `n${i}${'y'.repeat(300)}` }));
    const server = await hostile(answer(200, { 'content-type': 'application/json' }, JSON.stringify(many)));
    const r = await hostctl(['apps', 'list', '--json', '--base-url', server.baseUrl], { HOSTCTL_TOKEN: TOKEN });
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(join(config.path, 'state.json'), 'utf8');
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1024 * 1024);
    expect(text).not.toMatch(/y{201}/);
    const ids = Object.values((JSON.parse(text) as { ids: Record<string, Record<string, string[]>> }).ids).flatMap((byRes) => Object.values(byRes).flat());
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.length).toBeLessThanOrEqual(500);
  });

  test('__complete answers at once with a 20 MB state.json planted by hand: no candidate from it', async ({ hostctl, config }) => {
    const base = 'https://api.example.invalid/v1';
    const ids = Array.from({ length: 40 }, (_, i) => `ap-${i}${'z'.repeat(512 * 1024)}`);
    writeFileSync(join(config.path, 'state.json'), JSON.stringify({ rejected: {}, ids: { [base]: { apps: ids } }, names: {}, fields: {} }));
    expect(statSync(join(config.path, 'state.json')).size).toBeGreaterThan(20 * 1024 * 1024);
    const got = await hostctl(['__complete', 'apps', 'get', ''], { HOSTCTL_BASE_URL: base });
    expect(got.code).toBe(0);
    expect(got.stdout.length).toBeLessThan(10_000);
    expect(got.stdout).not.toContain('zzzz');
    const words = await hostctl(['__complete', 'ap'], { HOSTCTL_BASE_URL: base });
    expect(words.stdout).toMatch(/^apps\b/m);
  });
});

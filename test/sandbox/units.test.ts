// The sandbox's pieces on their own: lossless JSON, the two counters (driven by a fake
// clock, so the sliding window is proven without waiting), content negotiation, and the
// seed data.

import { describe, expect, it } from 'vitest';
import { RESOURCES } from '../../src/resources.js';
import { generateSeedData, MIN_APPS, PREFIXES } from '../../src/sandbox/data.js';
import { isLoopback } from '../../src/sandbox/http-plumbing.js';
import { parseJson, RawNumber, stringifyJson, JsonSyntaxError } from '../../src/sandbox/exact-json.js';
import { Lockout, SlidingWindow } from '../../src/sandbox/limits.js';
import { chooseApiFormat, wantsOpenApiJson } from '../../src/sandbox/negotiate.js';

describe('lossless JSON', () => {
  it('keeps every value and its type exactly as sent', () => {
    const text = '{"big":12345678901234567890,"f":1.0,"e":1e3,"n":-0.5,"i":42,"s":"\\u001b]0;pwned\\u0007","t":true,"z":null,"a":[1,"1",[{}]],"o":{"k":"v"}}';
    const v = parseJson(text);
    expect(stringifyJson(v)).toBe(text);
    expect((v as Record<string, unknown>).big).toBeInstanceOf(RawNumber);
    expect((v as Record<string, unknown>).i).toBe(42);
  });

  it('stores "__proto__" as an own property, never as the prototype', () => {
    const v = parseJson('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(stringifyJson(v as never)).toBe('{"__proto__":{"polluted":true}}');
  });

  it('rejects what JSON.parse rejects', () => {
    for (const bad of ['', '{', '{"a":1,}', '[1 2]', "{'a':1}", '01', '"\u0001"', 'nul', '1 2', '{"a":1}x']) {
      expect(() => parseJson(bad), bad).toThrow(JsonSyntaxError);
      expect(() => JSON.parse(bad), bad).toThrow();
    }
  });
});

describe('sliding window (fake clock)', () => {
  it('accepts the limit, refuses the next with Retry-After, and does not count refusals', () => {
    let now = 0;
    const w = new SlidingWindow(20, 60_000, () => now);
    for (let i = 1; i <= 20; i++) {
      const r = w.take('t');
      expect(r.allowed).toBe(true);
      expect(r.remaining).toBe(20 - i);
      now += 1000;
    }
    // The first request was at 0 s; at 20 s its slot frees at 60 s: 40 s to wait.
    const refused = w.take('t');
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfter: 40, reset: 40 });
    now = 59_999;
    expect(w.take('t').allowed).toBe(false);
    now = 60_000;
    // Sliding, not fixed: exactly one slot (the oldest) is free again.
    expect(w.take('t')).toMatchObject({ allowed: true, remaining: 0 });
    expect(w.take('t').allowed).toBe(false);
  });

  it('keeps each key to itself', () => {
    const w = new SlidingWindow(2, 1000, () => 0);
    w.take('a');
    w.take('a');
    expect(w.take('a').allowed).toBe(false);
    expect(w.take('b')).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('never announces more than the window, whatever fractions the clock has', () => {
    // A monotonic clock in fractional milliseconds (performance.now): (t + 60000) - t is
    // not always 60000 in floating point, and rounded up it said 61 s for a 60 s window.
    let now = 0;
    const w = new SlidingWindow(1, 60_000, () => now);
    const lockout = new Lockout(1, 900_000, () => now);
    for (let i = 0; i < 2000; i++) {
      now = 123_456.789 * (i + 1) + i / 7;
      expect(w.take(`k${i}`).reset).toBeLessThanOrEqual(60);
      expect(w.take(`k${i}`).retryAfter).toBeLessThanOrEqual(60);
      expect(lockout.fail(`ip${i}`).lockedFor).toBeLessThanOrEqual(900);
      expect(lockout.check(`ip${i}`).lockedFor).toBeLessThanOrEqual(900);
    }
  });

  it('Reset is 0 with an empty window and rounds up otherwise', () => {
    let now = 0;
    const w = new SlidingWindow(5, 10_000, () => now);
    expect(w.peek('x')).toEqual({ limit: 5, remaining: 5, reset: 0 });
    w.take('x');
    now = 500;
    expect(w.peek('x')).toEqual({ limit: 5, remaining: 4, reset: 10 });
    now = 10_001;
    expect(w.peek('x')).toEqual({ limit: 5, remaining: 5, reset: 0 });
  });
});

describe('lockout (fake clock)', () => {
  it('locks an address out after N failures for the lockout time, and only that address', () => {
    let now = 0;
    const l = new Lockout(3, 600_000, () => now);
    expect(l.fail('1.1.1.1')).toMatchObject({ remaining: 2, lockedFor: 0 });
    expect(l.fail('1.1.1.1')).toMatchObject({ remaining: 1, lockedFor: 0 });
    expect(l.fail('1.1.1.1')).toMatchObject({ remaining: 0, lockedFor: 600 });
    expect(l.check('1.1.1.1').lockedFor).toBe(600);
    expect(l.check('2.2.2.2').lockedFor).toBe(0);
    now = 599_500;
    expect(l.check('1.1.1.1').lockedFor).toBe(1);
    now = 600_000;
    expect(l.check('1.1.1.1')).toMatchObject({ lockedFor: 0, remaining: 3 });
  });

  it('forgets failures older than the window', () => {
    let now = 0;
    const l = new Lockout(2, 1000, () => now);
    l.fail('ip');
    now = 1001;
    expect(l.fail('ip')).toMatchObject({ remaining: 1, lockedFor: 0 });
  });
});

describe('content negotiation', () => {
  it('plain JSON for application/json, JSON-LD without Accept, 406 for neither', () => {
    expect(chooseApiFormat(undefined)).toBe('ld');
    expect(chooseApiFormat('')).toBe('ld');
    expect(chooseApiFormat('application/json')).toBe('json');
    expect(chooseApiFormat('application/ld+json')).toBe('ld');
    expect(chooseApiFormat('*/*')).toBe('ld');
    expect(chooseApiFormat('application/json, */*;q=0.8')).toBe('json');
    expect(chooseApiFormat('application/ld+json;q=0.5, application/json')).toBe('json');
    expect(chooseApiFormat('text/plain')).toBeUndefined();
    expect(chooseApiFormat('application/json;q=0')).toBeUndefined();
  });

  it('docs: OpenAPI JSON only when JSON is named', () => {
    expect(wantsOpenApiJson('application/json')).toBe(true);
    expect(wantsOpenApiJson('application/vnd.oai.openapi+json')).toBe(true);
    expect(wantsOpenApiJson(undefined)).toBe(false);
    expect(wantsOpenApiJson('*/*')).toBe(false);
    expect(wantsOpenApiJson('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')).toBe(false);
  });

  it('admin endpoints: loopback means 127.0.0.0/8 and ::1 only', () => {
    expect(isLoopback('127.0.0.1')).toBe(true);
    expect(isLoopback('127.0.0.2')).toBe(true);
    expect(isLoopback('::1')).toBe(true);
    expect(isLoopback('10.0.0.1')).toBe(false);
    expect(isLoopback('::ffff:10.0.0.1')).toBe(false);
    expect(isLoopback('1270.0.0.1')).toBe(false);
  });
});

describe('seed data', () => {
  const data = generateSeedData(1);
  const byId = new Map<string, Record<string, unknown>>();
  for (const list of Object.values(data)) for (const o of list) byId.set(String(o.publicId), o);

  it('is deterministic for a seed and different for another', () => {
    expect(JSON.stringify(generateSeedData(1))).toBe(JSON.stringify(data));
    expect(JSON.stringify(generateSeedData(2))).not.toBe(JSON.stringify(data));
  });

  it('has all seven resources, enough apps to page through, unique prefixed IDs', () => {
    for (const r of RESOURCES) expect(data[r.name]?.length, r.name).toBeGreaterThan(0);
    expect(data.apps!.length).toBeGreaterThanOrEqual(MIN_APPS);
    expect(MIN_APPS).toBeGreaterThanOrEqual(95);
    let count = 0;
    for (const [name, list] of Object.entries(data)) {
      for (const o of list) {
        expect(String(o.publicId).startsWith(PREFIXES[name]!)).toBe(true);
        if (RESOURCES.find((r) => r.name === name)?.prefix) expect(String(o.publicId).startsWith(RESOURCES.find((r) => r.name === name)!.prefix!)).toBe(true);
        count++;
      }
    }
    expect(byId.size).toBe(count);
  });

  it('carries every default column of the resource table, with ISO 8601 times', () => {
    for (const r of RESOURCES) {
      for (const o of data[r.name]!) {
        for (const c of r.columns) expect(Object.hasOwn(o, c), `${r.name}.${c}`).toBe(true);
        expect(String(o.createdAt)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      }
    }
  });

  it('relates objects by public ID', () => {
    const ref = (id: unknown, prefix: string) => {
      expect(String(id).startsWith(prefix)).toBe(true);
      expect(byId.has(String(id)), String(id)).toBe(true);
    };
    for (const a of data.apps!) ref(a.team, 'te-');
    for (const p of data.people!) ref(p.team, 'te-');
    for (const m of data['payment-methods']!) ref(m.team, 'te-');
    for (const e of data.environments!) ref(e.app, 'ap-');
    for (const d of data.deployments!) ref(d.environment, 'en-');
    for (const d of data.domains!) ref(d.environment, 'en-');
    // Every app has a production environment; every environment has a deployment.
    const envApps = new Set(data.environments!.filter((e) => e.name === 'production').map((e) => e.app));
    for (const a of data.apps!) expect(envApps.has(a.publicId)).toBe(true);
    const deployedEnvs = new Set(data.deployments!.map((d) => d.environment));
    for (const e of data.environments!) expect(deployedEnvs.has(e.publicId)).toBe(true);
    expect(data.people!.filter((p) => p.role === 'owner')).toHaveLength(1);
  });
});

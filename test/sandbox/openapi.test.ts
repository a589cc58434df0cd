// The sandbox's reference (/v1/docs) against what its routes do: every operation has a
// unique operationId, every path parameter is declared, and every answer a route gives
// (status and media type, with and without an Accept header) is one the reference
// declares. `hostctl api <operationId>` and `docs diff` read exactly these parts.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxServer, type RunningSandbox } from '../../src/sandbox/server.js';
import { allObjects, JSON_ACCEPT, req } from './helpers.js';

interface Param {
  name: string;
  in: string;
  required?: boolean;
}
interface Response {
  content?: Record<string, unknown>;
  headers?: Record<string, unknown>;
}
interface Op {
  operationId: string;
  parameters: Param[];
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, Response>;
}

let sb: RunningSandbox;
let doc: { paths: Record<string, Record<string, Op>> };
const ops = () => Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method: method.toUpperCase(), op })));

beforeAll(async () => {
  sb = await startSandboxServer({ port: 0, rateLimit: 100_000, seed: 7, log: () => undefined });
  doc = (await req(`${sb.url}/docs`, { token: sb.token, headers: JSON_ACCEPT })).json() as typeof doc;
});
afterAll(async () => {
  await sb?.close();
});

describe('the sandbox reference', () => {
  it('names every operation once', () => {
    const names = ops().map((o) => o.op.operationId);
    expect(names.every((n) => typeof n === 'string' && /^[a-z][A-Za-z]+$/.test(n))).toBe(true);
    expect(new Set(names).size).toBe(names.length);
  });

  it('declares every {parameter} of a path as a required path parameter, and no other', () => {
    for (const { path, method, op } of ops()) {
      const inTemplate = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const declared = op.parameters.filter((p) => p.in === 'path');
      expect(declared.map((p) => p.name).sort(), `${method} ${path}`).toEqual(inTemplate.sort());
      expect(declared.every((p) => p.required === true)).toBe(true);
    }
  });

  it('declares the status and media type of every answer its routes give, with and without Accept', async () => {
    const env = String((await allObjects(sb.origin, 'environments'))[0]!.publicId);
    const undeclared: string[] = [];
    for (const { path, method, op } of ops()) {
      const ids: Record<string, string> = { id: env };
      let concrete = path;
      if (path.includes('{publicId}')) {
        const collection = path.slice(1, path.indexOf('/', 1));
        ids.publicId = String((await allObjects(sb.origin, collection))[0]!.publicId);
      }
      concrete = concrete.replace(/\{([^}]+)\}/g, (_m, n: string) => ids[n] ?? 'x');
      for (const accept of [JSON_ACCEPT, {}, { accept: 'text/plain' }]) {
        const body = method === 'POST' ? '{"name":"from the reference test"}' : undefined;
        const headers = { ...accept, ...(body ? { 'content-type': 'application/json' } : {}) };
        const res = await req(`${sb.url}${concrete}`, { method, token: sb.token, headers, body });
        const declared = op.responses[String(res.status)];
        const type = (res.headers['content-type'] ?? '').split(';')[0]!;
        const where = `${method} ${path} (Accept: ${JSON.stringify(accept)}) -> ${res.status} ${type}`;
        if (!declared || !Object.keys(declared.content ?? {}).includes(type)) undeclared.push(where);
        if (res.headers.location && !Object.keys(declared?.headers ?? {}).includes('Location')) undeclared.push(`${where}: Location header`);
      }
    }
    expect(undeclared).toEqual([]);
  });
});

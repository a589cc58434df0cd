// The kept reference and what hostctl reads from it, one module at a time: its age with an
// injected clock, the file per base URL, operations from documents shaped unlike the
// sandbox's ($ref parameters, Swagger 2 `produces`), the diff, the closest names, and
// path parameters that must stay one path segment.

import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closestNames, extractOperations, fillPath, pathParameters, type Operation } from '../../src/reference/operations.js';
import { diffReferences } from '../../src/reference/reference.js';
import { isFresh, MAX_AGE_MS, readKept, referenceFile, writeKept, type KeptReference } from '../../src/reference/store.js';
import { tmpDir } from '../support/cli.js';

const base = new URL('https://api.example.invalid/v1');
const at = new URL('https://api.example.invalid/v1/docs');

const op = (over: Partial<Operation>): Operation => ({
  operationId: 'listApps',
  method: 'GET',
  path: '/apps',
  underBase: true,
  summary: '',
  parameters: [],
  responses: ['200 application/json'],
  ...over,
});

describe('the kept copy', () => {
  let dir: { path: string; cleanup(): void };
  let env: NodeJS.ProcessEnv;
  beforeEach(() => {
    dir = tmpDir();
    env = { HOSTCTL_CONFIG_DIR: dir.path };
  });
  afterEach(() => dir.cleanup());

  const kept = (over: Partial<KeptReference> = {}): KeptReference => ({
    baseUrl: 'https://api.example.invalid/v1',
    url: 'https://api.example.invalid/v1/docs',
    fetchedAt: 1_700_000_000_000,
    hash: `sha256:${'0'.repeat(64)}`,
    operations: [op({})],
    ...over,
  });

  it('is fresh for a day after it was fetched, by the injected clock, and never when from the future', () => {
    const k = kept();
    expect(isFresh(k, k.fetchedAt)).toBe(true);
    expect(isFresh(k, k.fetchedAt + MAX_AGE_MS - 1)).toBe(true);
    expect(isFresh(k, k.fetchedAt + MAX_AGE_MS)).toBe(false);
    expect(isFresh(k, k.fetchedAt - 1)).toBe(false);
  });

  it('is one file per base URL, in references/ of the state dir, read back as written', () => {
    writeKept(kept(), env);
    writeKept(kept({ baseUrl: 'https://staging.example.invalid/v1', operations: [] }), env);
    expect(readdirSync(join(dir.path, 'references'))).toHaveLength(2);
    expect(readKept('https://api.example.invalid/v1/', env)).toEqual(kept());
    expect(readKept(new URL('https://api.example.invalid/v1?x=1'), env)).toEqual(kept());
    expect(readKept('https://staging.example.invalid/v1', env)?.operations).toEqual([]);
    expect(readKept('https://other.example.invalid/v1', env)).toBeUndefined();
  });

  it('a damaged or foreign file counts as none', () => {
    const file = referenceFile(base, env)!;
    for (const text of ['{', '[]', JSON.stringify({ version: 1, ...kept(), operations: [{ method: 'GET' }] }), JSON.stringify({ version: 99, ...kept() })]) {
      writeKept(kept(), env);
      writeFileSync(file, text);
      expect(readKept(base, env), text).toBeUndefined();
    }
  });
});

describe('extractOperations', () => {
  it('merges path-item parameters (through $ref) with the operation\'s own, which win', () => {
    const [get] = extractOperations(
      {
        openapi: '3.0.3',
        paths: {
          '/apps/{app_id}': {
            parameters: [{ $ref: '#/components/parameters/AppId' }, { name: 'verbose', in: 'query' }],
            get: { operationId: 'fetchApp', parameters: [{ name: 'verbose', in: 'query', required: true }], responses: { '200': { $ref: '#/components/responses/App' } } },
          },
        },
        components: {
          parameters: { AppId: { name: 'app_id', in: 'path', required: true } },
          responses: { App: { content: { 'application/json': {}, 'application/ld+json': {} } } },
        },
      },
      at,
      base,
    );
    expect(get).toEqual({
      operationId: 'fetchApp',
      method: 'GET',
      path: '/apps/{app_id}',
      underBase: true,
      summary: '',
      parameters: [
        { name: 'app_id', in: 'path', required: true },
        { name: 'verbose', in: 'query', required: true },
      ],
      responses: ['200 application/json', '200 application/ld+json'],
    });
  });

  it('reads Swagger 2 media types from produces, and marks a path outside the base URL', () => {
    const ops = extractOperations(
      { swagger: '2.0', basePath: '/', produces: ['application/json'], paths: { '/health': { get: { responses: { '200': { schema: {} }, '204': { description: 'empty' } } } } } },
      at,
      base,
    );
    expect(ops).toEqual([{ operationId: null, method: 'GET', path: '/health', underBase: false, summary: '', parameters: [], responses: ['200 application/json'] }]);
  });
});

describe('diffReferences', () => {
  it('keys operations by operationId, else by method and path, and names each change', () => {
    const before = [
      op({}),
      op({ operationId: 'getApp', path: '/apps/{id}', parameters: [{ name: 'id', in: 'path', required: true }] }),
      op({ operationId: null, method: 'DELETE', path: '/apps/{id}' }),
      op({ operationId: 'gone', path: '/gone' }),
    ];
    const after = [
      op({ parameters: [{ name: 'status', in: 'query', required: false }], responses: ['200 application/json', '200 application/ld+json'] }),
      op({ operationId: 'getApp', method: 'POST', path: '/apps/{publicId}', parameters: [{ name: 'publicId', in: 'path', required: true }] }),
      op({ operationId: null, method: 'DELETE', path: '/apps/{id}' }),
      op({ operationId: 'fresh', path: '/fresh' }),
    ];
    expect(diffReferences(before, after)).toEqual([
      { change: 'changed', operationId: 'listApps', method: 'GET', path: '/apps', details: 'parameters +status (query); responses +200 application/ld+json' },
      {
        change: 'changed',
        operationId: 'getApp',
        method: 'POST',
        path: '/apps/{publicId}',
        details: 'method GET -> POST; path /apps/{id} -> /apps/{publicId}; parameters +publicId (path, required), -id (path, required)',
      },
      { change: 'added', operationId: 'fresh', method: 'GET', path: '/fresh', details: '' },
      { change: 'removed', operationId: 'gone', method: 'GET', path: '/gone', details: '' },
    ]);
    expect(diffReferences(after, after)).toEqual([]);
  });
});

describe('names and path parameters', () => {
  it('offers the closest names, case ignored, or none', () => {
    const names = ['listApps', 'getApp', 'createApp', 'listEnvironmentDeployments', 'getDocs'];
    expect(closestNames('listapps', names)).toEqual(['listApps']);
    expect(closestNames('getAp', names)).toEqual(['getApp']);
    expect(closestNames('deployments', names)).toEqual(['listEnvironmentDeployments']);
    expect(closestNames('zzz', names)).toEqual([]);
  });

  it('takes path parameters from the template and the declarations, and keeps each value one segment', () => {
    expect(pathParameters(op({ path: '/a/{x}/b/{y}', parameters: [{ name: 'z', in: 'path', required: true }] }))).toEqual(['x', 'y', 'z']);
    expect(fillPath('/apps/{id}/logs', new Map([['id', '../../x?y=1#z']]))).toBe('/apps/..%2F..%2Fx%3Fy%3D1%23z/logs');
  });
});

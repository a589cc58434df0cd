// The parts of `hostctl docs` that the sandbox alone cannot exercise: OpenAPI documents
// shaped differently from its own (Swagger 2 basePath, server variables, absolute server
// URLs, descriptions without summaries), and the word splitting of $BROWSER.

import { describe, expect, it } from 'vitest';
import { docsUrl, splitCommand, toRow } from '../../src/commands/docs.js';
import { extractOperations } from '../../src/reference/operations.js';

/** The operations of a document as `docs --operations` lists them. */
const operationsOf = async (doc: unknown, docUrl: URL, baseUrl: URL) => extractOperations(doc, docUrl, baseUrl).map(toRow);

const base = new URL('https://api.example.invalid/v1');
const at = new URL('https://api.example.invalid/v1/docs');

describe('operationsOf', () => {
  it('gives paths relative to the base URL, whatever prefix the document uses', async () => {
    const servers = [
      { servers: [{ url: '/v1' }], path: '/apps' },
      { servers: [{ url: 'https://api.example.invalid/v1/' }], path: '/apps' },
      { servers: [{ url: '/' }], path: '/v1/apps' },
      { servers: [{ url: '/{version}', variables: { version: { default: 'v1' } } }], path: '/apps' },
      { basePath: '/v1', path: '/apps' },
      { path: '/v1/apps' },
    ];
    for (const { path, ...top } of servers) {
      const rows = await operationsOf({ ...top, paths: { [path]: { get: { summary: 'List apps', operationId: 'listApps' } } } }, at, base);
      expect(rows, JSON.stringify(top)).toEqual([{ method: 'GET', path: '/apps', summary: 'List apps', operationId: 'listApps' }]);
    }
  });

  it('keeps a path outside the base URL whole', async () => {
    const rows = await operationsOf({ servers: [{ url: '/' }], paths: { '/health': { get: {} } } }, at, base);
    expect(rows).toEqual([{ method: 'GET', path: '/health', summary: '', operationId: null }]);
  });

  it('takes paths in document order, methods in the usual order, skips the rest, and falls back to the description', async () => {
    const rows = await operationsOf(
      {
        paths: {
          '/apps': {
            parameters: [],
            summary: 'path-level, not an operation',
            post: { description: 'Creates an app.\nMore text.' },
            get: { summary: 'List' },
            'x-internal': { summary: 'no' },
          },
          '/apps/{id}': { delete: { summary: 'Delete' }, patch: { summary: 'Change' } },
        },
      },
      at,
      base,
    );
    expect(rows.map((r) => `${r.method} ${r.path} ${r.summary}`)).toEqual([
      'GET /apps List',
      'POST /apps Creates an app.',
      'DELETE /apps/{id} Delete',
      'PATCH /apps/{id} Change',
    ]);
  });

  it('refuses JSON that is not an OpenAPI document', async () => {
    await expect(operationsOf({ hello: 'world' }, at, base)).rejects.toThrow(/not an OpenAPI document/);
    await expect(operationsOf([1, 2], at, base)).rejects.toThrow(/not an OpenAPI document/);
  });
});

describe('docsUrl', () => {
  it('is the base URL plus /docs, without a double slash', () => {
    expect(docsUrl(new URL('https://api.example.invalid/v1'))).toBe('https://api.example.invalid/v1/docs');
    expect(docsUrl(new URL('https://api.example.invalid/'))).toBe('https://api.example.invalid/docs');
  });
});

describe('splitCommand ($BROWSER)', () => {
  it('splits words with shell quoting', () => {
    expect(splitCommand('firefox --new-tab')).toEqual(['firefox', '--new-tab']);
    expect(splitCommand(`"/opt/My Browser/run" -x 'a b' c\\ d`)).toEqual(['/opt/My Browser/run', '-x', 'a b', 'c d']);
    expect(splitCommand('  w3m  ')).toEqual(['w3m']);
    expect(splitCommand(`open -a ""`)).toEqual(['open', '-a', '']);
  });

  it('refuses an unclosed quote', () => {
    expect(() => splitCommand('"firefox')).toThrow(/unclosed/);
  });
});

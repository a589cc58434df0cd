import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPrinter } from '../../src/output/format.js';
import { JsonNumber, parseJson } from '../../src/output/json.js';
import { fakeIO, NOW, print } from './output-support.js';

const COLUMNS = ['name', 'status', 'updatedAt'];
const app1 = { '@id': '/v1/apps/ap-1', '@type': 'App', publicId: 'ap-1', name: 'web', status: 'running', updatedAt: '2024-04-28T12:00:00Z', team: { '@id': '/v1/teams/te-1', publicId: 'te-1', name: 'Acme' } };
const app2 = { publicId: 'ap-2', name: 'worker', status: 'failed', updatedAt: '2024-05-01T11:55:00.000Z', team: { publicId: 'te-2', name: 'Beta' } };

describe('json', () => {
  it('prints a list as a 2-space indented array without @ members, with a trailing newline', async () => {
    const out = await print([app1, app2], { format: 'json', columns: COLUMNS });
    const { '@id': _i, '@type': _t, team: _team, ...rest } = app1;
    const expected = [{ ...rest, team: { publicId: 'te-1', name: 'Acme' } }, app2];
    expect(out).toBe(`${JSON.stringify(expected, null, 2)}\n`);
  });

  it('prints one object for "single", an array for "list" even of one, [] for an empty list', async () => {
    expect(JSON.parse(await print([app2], { format: 'json', shape: 'single' }))).toEqual(app2);
    expect(JSON.parse(await print([app2], { format: 'json', shape: 'list' }))).toEqual([app2]);
    expect(await print([], { format: 'json', shape: 'list' })).toBe('[]\n');
  });

  it('keeps pages in order across add() calls', async () => {
    const fake = fakeIO();
    const printer = await createPrinter({ io: fake.io, format: 'json' });
    printer.add([1, 2]);
    printer.add([3]);
    await printer.end('list');
    expect(JSON.parse(fake.stdout())).toEqual([1, 2, 3]);
  });

  it('writes numbers exactly as the API sent them', async () => {
    const item = parseJson('{"publicId":"ap-1","bytes":12345678901234567890,"ratio":1.0000000000000000001}');
    const out = await print([item], { format: 'json', shape: 'single' });
    expect(out).toBe('{\n  "publicId": "ap-1",\n  "bytes": 12345678901234567890,\n  "ratio": 1.0000000000000000001\n}\n');
  });

  it('keeps only --fields, in their order, with dotted paths as nested objects', async () => {
    const out = await print([app1, app2, { publicId: 'ap-3', team: 'te-3' }], { format: 'json', fields: ['team.name', 'publicId', 'nothing'] });
    expect(JSON.parse(out)).toEqual([
      { team: { name: 'Acme' }, publicId: 'ap-1' },
      { team: { name: 'Beta' }, publicId: 'ap-2' },
      { publicId: 'ap-3' },
    ]);
    expect(Object.keys(JSON.parse(out)[0])).toEqual(['team', 'publicId']);
  });

  it('--fields reaches into arrays of objects, and a whole field wins over its sub-path', async () => {
    const item = { publicId: 'ap-1', domains: [{ hostname: 'a.test', tls: 'issued' }, { hostname: 'b.test' }], team: { name: 'Acme', plan: 'pro' } };
    const out = await print([item], { format: 'json', shape: 'single', fields: ['domains.hostname', 'team.name', 'team'] });
    expect(JSON.parse(out)).toEqual({ domains: [{ hostname: 'a.test' }, { hostname: 'b.test' }], team: { name: 'Acme', plan: 'pro' } });
  });

  it('prints values that are not objects as they are', async () => {
    expect(await print(['hello'], { format: 'json', shape: 'single' })).toBe('"hello"\n');
    expect(await print([[1, 'a', null]], { format: 'json', shape: 'single', fields: ['x'] })).toBe('[\n  1,\n  "a",\n  null\n]\n');
  });
});

describe('ndjson', () => {
  it('writes one compact object per line, each page as it arrives', async () => {
    const fake = fakeIO();
    const printer = await createPrinter({ io: fake.io, format: 'ndjson', fields: ['publicId', 'team.name'] });
    printer.add([app1]);
    expect(fake.stdout()).toBe('{"publicId":"ap-1","team":{"name":"Acme"}}\n');
    printer.add([app2, 'x']);
    expect(fake.writes()).toBe(2);
    await printer.end('list');
    expect(fake.stdout()).toBe('{"publicId":"ap-1","team":{"name":"Acme"}}\n{"publicId":"ap-2","team":{"name":"Beta"}}\n"x"\n');
  });

  it('prints nothing for an empty list', async () => {
    expect(await print([], { format: 'ndjson' })).toBe('');
  });
});

describe('tsv', () => {
  it('prints publicId and every declared column, empty where absent, no header, full ISO times', async () => {
    const out = await print([app1, app2], { format: 'tsv', columns: ['publicId', ...COLUMNS, 'region'], now: () => NOW });
    expect(out).toBe('ap-1\tweb\trunning\t2024-04-28T12:00:00Z\t\nap-2\tworker\tfailed\t2024-05-01T11:55:00.000Z\t\n');
  });

  it('keeps every column in its place whatever fields an object lacks, so cut -fN reads one field', async () => {
    const rows = [
      { publicId: 'ap-1', name: 'web', status: 'running', updatedAt: '2024-04-28T12:00:00Z' },
      { publicId: 'ap-2', status: 'failed' },
      { publicId: 'ap-3', updatedAt: '2024-04-29T12:00:00Z', extra: 'x' },
    ];
    const fake = fakeIO();
    // No object has "region": its column is still there, empty.
    const printer = await createPrinter({ io: fake.io, format: 'tsv', columns: ['publicId', 'name', 'region', 'status', 'updatedAt'], shape: 'list' });
    for (const row of rows) await printer.add([row]);
    await printer.end('list');
    const lines = fake.stdout().split('\n').slice(0, -1).map((l) => l.split('\t'));
    expect(lines).toEqual([
      ['ap-1', 'web', '', 'running', '2024-04-28T12:00:00Z'],
      ['ap-2', '', '', 'failed', ''],
      ['ap-3', '', '', '', '2024-04-29T12:00:00Z'],
    ]);
  });

  it('writes a reference as its public ID, however the server nests it', async () => {
    const rows = [
      { publicId: 'ap-1', team: { publicId: 'te-1', name: 'Acme' } },
      { publicId: 'ap-2', team: 'te-2' },
      { publicId: 'ap-3', team: { '@id': '/v1/teams/te-3', publicId: 'te-3' } },
    ];
    expect(await print(rows, { format: 'tsv', columns: ['publicId', 'team'] })).toBe('ap-1\tte-1\nap-2\tte-2\nap-3\tte-3\n');
  });

  it('does not depend on the terminal width', async () => {
    const narrow = await print([app1, app2], { format: 'tsv', columns: COLUMNS, width: 10 });
    const wide = await print([app1, app2], { format: 'tsv', columns: COLUMNS, width: 300 });
    expect(narrow).toBe(wide);
  });

  it('escapes tabs, newlines, carriage returns and backslashes inside values', async () => {
    const out = await print([{ publicId: 'ap-1', name: 'a\tb\nc\rd\\e' }], { format: 'tsv', columns: ['publicId', 'name'] });
    expect(out).toBe('ap-1\ta\\tb\\nc\\rd\\\\e\n');
  });

  it('strips control sequences and bidi controls', async () => {
    const out = await print([{ publicId: 'ap-1', name: '\u001b]0;pwned\u0007x\u001b[2J\u009b1m\u202eevil' }], { format: 'tsv', columns: ['publicId', 'name'] });
    expect(out).toBe('ap-1\txevil\n');
  });

  it('writes nested values as compact JSON and null as empty', async () => {
    const out = await print([{ publicId: 'ap-1', team: { name: 'A\tB' }, status: null }], { format: 'tsv', columns: ['publicId', 'team', 'status'] });
    expect(out).toBe('ap-1\t{"name":"A\\\\tB"}\t\n');
  });

  it('writes a number as the json output does: -0 stays -0, in tsv and in a table', async () => {
    const rows = [parseJson('{"publicId":"ap-1","delta":-0,"ratio":-0.0,"n":0}')];
    expect(await print(rows, { format: 'tsv', columns: ['publicId', 'delta', 'ratio', 'n'] })).toBe('ap-1\t-0\t-0\t0\n');
    expect(await print(rows, { format: 'json' })).toContain('"delta": -0');
    const table = await print(rows, { format: 'table', columns: ['publicId', 'delta', 'ratio', 'n'] });
    expect(table.split('\n')[1]?.split(/\s+/)).toEqual(['ap-1', '-0', '-0', '0']);
  });

  it('uses --fields as the columns, absent ones empty', async () => {
    const out = await print([app1, app2], { format: 'tsv', columns: COLUMNS, fields: ['team.name', 'missing', 'publicId'] });
    expect(out).toBe('Acme\t\tap-1\nBeta\t\tap-2\n');
  });

  it('prints every scalar field for objects without publicId or default columns (hostctl api)', async () => {
    const out = await print([{ method: 'GET', path: '/apps', nested: { x: 1 } }], { format: 'tsv' });
    expect(out).toBe('GET\t/apps\n');
  });

  it('prints one value per line for strings, numbers and arrays', async () => {
    expect(await print(['a\tb', 1, null, true, new JsonNumber('12345678901234567890')], { format: 'tsv' })).toBe('a\\tb\n1\n\ntrue\n12345678901234567890\n');
    expect(await print([['x', 'y']], { format: 'tsv', shape: 'single' })).toBe('x\ny\n');
    expect(await print([[{ publicId: 'ap-1' }]], { format: 'tsv', shape: 'single' })).toBe('ap-1\n');
  });

  it('prints nothing for an empty list', async () => {
    expect(await print([], { format: 'tsv', columns: COLUMNS })).toBe('');
  });
});

describe('table', () => {
  it('prints values that are not objects one per line, objects among them as JSON', async () => {
    const out = await print(['hello', 42, { a: '\u001b[31m' }], { format: 'table' });
    expect(out).toBe('hello\n42\n{"a":"\\u001b[31m"}\n');
  });
});

describe('start-up cost', () => {
  // json, ndjson and tsv must not load the table's dependencies: follow format.ts's
  // static imports and check that none reaches them.
  it('json, ndjson and tsv paths import neither chalk nor string-width (nor ora or undici)', () => {
    const heavy = ['chalk', 'string-width', 'ora', 'undici'];
    const seen = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const source = readFileSync(file, 'utf8');
      for (const m of source.matchAll(/^import\s+(?!type\b)[^'"]*?from\s+'([^']+)'|^import\s+'([^']+)'/gm)) {
        const spec = m[1] ?? m[2] ?? '';
        expect(heavy, `${file} imports ${spec}`).not.toContain(spec);
        if (spec.startsWith('.')) visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      }
    };
    visit(resolve(__dirname, '../../src/output/format.ts'));
    expect(seen.size).toBeGreaterThan(3);
    expect([...seen].some((f) => f.endsWith('table.ts'))).toBe(false);
  });
});

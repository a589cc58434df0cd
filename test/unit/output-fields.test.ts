// The promises of --fields at its edges (a path through an array, a name with no dot or a
// leading dot, a path through a value that is not an object), of the printers' shapes
// (tsv's columns without a resource, json's and table's "single" of more than one object,
// an empty list of fields, ndjson's --fields warning) and of dataPrinter's choice of when
// the user asked for data.

import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { IO } from '../../src/io.js';
import { createPrinter, dataPrinter, type OutputContext } from '../../src/output/format.js';
import { fakeIO, NOW, print } from './output-support.js';

describe('--fields through arrays (table and tsv cells)', () => {
  it('a path into an array of objects shows the values that are there, and an empty cell when none is', async () => {
    const rows = [
      { publicId: 'ap-1', domains: [{ hostname: 'a.test' }, { tls: 'issued' }, { hostname: 'b.test' }] },
      { publicId: 'ap-2', domains: [{ tls: 'none' }] },
    ];
    const out = await print(rows, { format: 'tsv', fields: ['publicId', 'domains.hostname'] });
    expect(out).toBe('ap-1\t["a.test","b.test"]\nap-2\t\n');
  });

  it('--fields cuts every object of a top-level array', async () => {
    const out = await print([[{ publicId: 'ap-1', name: 'web' }, { publicId: 'ap-2', name: 'db' }]], { format: 'json', shape: 'single', fields: ['name'] });
    expect(JSON.parse(out)).toEqual([{ name: 'web' }, { name: 'db' }]);
  });
});

describe('--fields paths that reach nothing', () => {
  it('a path through a string shows an empty cell, not a property of the string', async () => {
    const out = await print([{ publicId: 'ap-1', name: 'web' }], { format: 'tsv', fields: ['name', 'name.length'] });
    expect(out).toBe('web\t\n');
  });

  it('a name without a dot is only that property, never a path through a shorter name', async () => {
    const row = { publicId: 'ap-1', nam: { name: 'inner', h: 1 } };
    expect(await print([row], { format: 'tsv', fields: ['nam', 'name'] })).toBe('{"name":"inner","h":1}\t\n');
    expect(await print([row], { format: 'json', shape: 'single', fields: ['name'] })).toBe('{}\n');
  });

  it('a name with a leading dot is not a path through the property named ""', async () => {
    const row = { publicId: 'ap-1', '': { x: 'v', y: 1 } };
    expect(await print([row], { format: 'json', shape: 'single', fields: ['.x'] })).toBe('{}\n');
    expect(await print([row], { format: 'tsv', fields: ['', '.x'] })).toBe('{"x":"v","y":1}\t\n');
  });

  it('a path through a value that is not an object leaves the field out, in json and in the detail view', async () => {
    const row = { publicId: 'ap-1', team: 'te-1' };
    expect(await print([row], { format: 'json', shape: 'single', fields: ['publicId', 'team.name'] })).toBe('{\n  "publicId": "ap-1"\n}\n');
    const detail = await print([row], { format: 'table', tty: true, shape: 'single', fields: ['publicId', 'team.name'], now: () => NOW });
    expect(detail).toContain('ap-1');
    expect(detail).not.toContain('team');
  });
});

describe('--fields with several paths under one name', () => {
  it('keeps every asked sub-field of a nested object, in the order of --fields', async () => {
    const row = { publicId: 'ap-1', team: { publicId: 'te-1', name: 'Acme', plan: 'pro' } };
    const out = await print([row], { format: 'json', shape: 'single', fields: ['team.name', 'publicId', 'team.publicId'] });
    expect(out).toBe('{\n  "team": {\n    "name": "Acme",\n    "publicId": "te-1"\n  },\n  "publicId": "ap-1"\n}\n');
  });
});

describe('the printers', () => {
  it('tsv without a resource takes its columns from the objects', async () => {
    const rows = [
      { publicId: 'ap-1', name: 'web' },
      { publicId: 'ap-2', name: 'db' },
    ];
    expect(await print(rows, { format: 'tsv', shape: 'list' })).toBe('ap-1\tweb\nap-2\tdb\n');
  });

  it('json of "single" with more than one object prints them all as an array', async () => {
    const out = await print([{ publicId: 'ap-1' }, { publicId: 'ap-2' }], { format: 'json', shape: 'single' });
    expect(JSON.parse(out)).toEqual([{ publicId: 'ap-1' }, { publicId: 'ap-2' }]);
  });

  it('table of "single" with more than one object on a terminal is a table of them all, not the detail view of the first', async () => {
    const out = await print([{ publicId: 'ap-1' }, { publicId: 'ap-2' }], { format: 'table', shape: 'single', tty: true });
    expect(out).toBe('PUBLIC ID\nap-1\nap-2\n');
  });

  it('an empty list of fields is no --fields: whole objects, and no warning', async () => {
    const fake = fakeIO();
    const printer = await createPrinter({ io: fake.io, format: 'ndjson', fields: [] });
    await printer.add([{ publicId: 'ap-1', name: 'web' }]);
    await printer.end('list');
    expect({ stdout: fake.stdout(), stderr: fake.stderr() }).toEqual({ stdout: '{"publicId":"ap-1","name":"web"}\n', stderr: '' });
  });

  it('ndjson warns on stderr about --fields no object has', async () => {
    const err: string[] = [];
    const io = new IO({
      stdout: Object.assign(new Writable({ write: (_c, _e, d) => d() }), { isTTY: false }),
      stderr: new Writable({ write: (c: Buffer, _e, d) => (err.push(c.toString()), d()) }),
      env: { NO_COLOR: '1' },
    });
    const printer = await createPrinter({ io, format: 'ndjson', fields: ['publicId', 'nosuch'] });
    await printer.add([{ publicId: 'ap-1', name: 'web' }]);
    await printer.end('list');
    expect(err.join('')).toBe('hostctl: warning: --fields: no object has "nosuch"; the objects have: publicId, name.\n');
  });
});

describe('the --fields warning', () => {
  /** stdout and stderr of one page printed with --fields `fields`. */
  const printed = async (items: readonly unknown[], fields: string[], shape: 'list' | 'single' = 'list') => {
    const fake = fakeIO();
    const printer = await createPrinter({ io: fake.io, format: 'json', fields });
    await printer.add(items);
    await printer.end(shape);
    return { stdout: fake.stdout(), stderr: fake.stderr() };
  };

  it('names every field no object has, and only those', async () => {
    const { stderr } = await printed([{ publicId: 'ap-1', name: 'web' }], ['name', 'nosuch', 'other']);
    expect(stderr).toBe('hostctl: warning: --fields: no object has "nosuch", "other"; the objects have: publicId, name.\n');
  });

  it('is not given when some object has every field', async () => {
    expect(await printed([{ publicId: 'ap-1' }, { name: 'web' }], ['publicId', 'name'])).toEqual({
      stdout: '[\n  {\n    "publicId": "ap-1"\n  },\n  {\n    "name": "web"\n  }\n]\n',
      stderr: '',
    });
  });

  it('looks into the objects of a single array, as into those of a list', async () => {
    const { stderr } = await printed([[{ publicId: 'ap-1' }]], ['nosuch'], 'single');
    expect(stderr).toBe('hostctl: warning: --fields: no object has "nosuch"; the objects have: publicId.\n');
  });

  it('is not given when no object came: an empty list, or values that are not objects', async () => {
    expect(await printed([], ['nosuch'])).toEqual({ stdout: '[]\n', stderr: '' });
    expect(await printed(['web', 42], ['nosuch'])).toEqual({ stdout: '[\n  "web",\n  42\n]\n', stderr: '' });
  });

  it('names the fields of the objects only until 200 are known', async () => {
    const wide = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`f${i}`, i]));
    const { stderr } = await printed([wide, { late: 1 }], ['nosuch']);
    expect(stderr).toBe(`hostctl: warning: --fields: no object has "nosuch"; the objects have: ${Object.keys(wide).join(', ')}.\n`);
  });

  it('says so when the objects have no fields at all', async () => {
    expect(await printed([{}, {}], ['name'])).toEqual({
      stdout: '[\n  {},\n  {}\n]\n',
      stderr: 'hostctl: warning: --fields: no object has "name"; the objects have: no fields.\n',
    });
  });
});

describe('dataPrinter', () => {
  const ctx = (opts: OutputContext['opts']): OutputContext => ({
    io: fakeIO().io,
    opts,
    outputFormat: () => 'json',
  });

  it('gives a printer for -o alone and for --fields alone, and none when nothing asks for data', async () => {
    expect(await dataPrinter(ctx({ output: 'json' }))).toBeDefined();
    expect(await dataPrinter(ctx({ fields: ['publicId'] }))).toBeDefined();
    expect(await dataPrinter(ctx({}))).toBeUndefined();
  });
});

// The table's column priorities and references, the detail view, and the streaming
// printers' back-pressure: units of src/output/ with an in-memory IO.

import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { IO } from '../../src/io.js';
import { createPrinter } from '../../src/output/format.js';
import { layout, renderTable } from '../../src/output/table.js';
import { referenceName } from '../../src/output/columns.js';
import { detailRows, renderDetail, wrap } from '../../src/output/detail.js';
import { NAME_FIELDS } from '../../src/resources.js';
import { NOW, print } from './output-support.js';

const names = (map: Record<string, string>) => (id: string) => (Object.hasOwn(map, id) ? map[id] : undefined);

describe('table column priorities', () => {
  it('drops optional columns first, then the lowest declared ones; publicId is never cut', () => {
    const columns = ['publicId', 'name', 'status', 'team', 'runtime'];
    const natural = [13, 20, 9, 12, 8];
    expect(layout(columns, natural, 4, 200, false).shown).toEqual([0, 1, 2, 3, 4]);
    // 13+20+9+12 + 3 gaps = 60: runtime (optional) goes first.
    expect(layout(columns, natural, 4, 60, false)).toEqual({ shown: [0, 1, 2, 3], widths: [13, 20, 9, 12] });
    // Narrower: the declared columns are cut, not dropped, while MIN_CUT still fits...
    const cut = layout(columns, natural, 4, 50, false);
    expect(cut.shown).toEqual([0, 1, 2, 3]);
    expect(cut.widths[0]).toBe(13);
    // ...then the lowest-priority declared column goes.
    const narrow = layout(columns, natural, 4, 30, false);
    expect(narrow.shown).toEqual([0, 1]);
    expect(narrow.widths[0]).toBe(13);
  });

  it('keeps every --fields column, cutting instead of dropping', () => {
    const r = layout(['publicId', 'a', 'b', 'c'], [13, 30, 30, 30], 4, 40, true);
    expect(r.shown).toEqual([0, 1, 2, 3]);
    expect(r.widths[0]).toBe(13);
  });

  it('shows references as name and ID, never JSON; long hex as 7 characters', () => {
    const rows = [
      { publicId: 'dp-1', environment: { publicId: 'en-1', name: 'production' }, commit: 'ce58857075056c5ba1a26de298c1c44cf374d4f8', team: 'te-9' },
      { publicId: 'dp-2', environment: { '@id': '/v1/environments/en-2', publicId: 'en-2' }, commit: 'abc', team: 'te-8' },
    ];
    const out = renderTable(rows, { defaults: ['environment', 'commit', 'team'], width: 200, color: false, now: NOW, names: names({ 'te-9': 'Acme', 'en-2': 'staging' }), nameFields: NAME_FIELDS });
    const [header, one, two] = out.trimEnd().split('\n').map((l) => l.split(/\s{2,}/));
    expect(header).toEqual(['PUBLIC ID', 'ENVIRONMENT', 'COMMIT', 'TEAM']);
    expect(one).toEqual(['dp-1', 'production (en-1)', 'ce58857', 'te-9']);
    // One form per column: te-8 has no known name, so TEAM shows bare IDs in every row.
    expect(two).toEqual(['dp-2', 'staging (en-2)', 'abc', 'te-8']);
  });

  it('shortens only a value that is all hex: a digest with a prefix or a suffix is shown whole', () => {
    const rows = [
      { publicId: 'dp-1', commit: 'release-ce58857075056c5b' },
      { publicId: 'dp-2', commit: 'ce58857075056c5b-hotfix' },
      { publicId: 'dp-3', commit: 'CE58857075056C5B' },
    ];
    const out = renderTable(rows, { defaults: ['commit'], width: 200, color: false, now: NOW, nameFields: NAME_FIELDS });
    expect(out.trimEnd().split('\n').slice(1).map((l) => l.split(/\s{2,}/)[1])).toEqual(['release-ce58857075056c5b', 'ce58857075056c5b-hotfix', 'CE58857']);
  });

  it('shows a reference too wide for its cell as its whole ID', () => {
    const rows = [{ publicId: 'ap-1', name: 'a-rather-long-application-name', team: { publicId: 'te-123456', name: 'A team with a very long name indeed' } }];
    const out = renderTable(rows, { defaults: ['name', 'team'], width: 40, color: false, now: NOW, nameFields: NAME_FIELDS });
    expect(out.split('\n')[1]).toMatch(/te-123456$/);
  });

  it('lays out 20,000 rows (linear, not quadratic: no timing asserted, only that it finishes whole)', () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => ({ publicId: `ap-${i}`, name: `app-${i}`, status: 'running' }));
    const out = renderTable(rows, { defaults: ['name', 'status'], width: 80, color: false, now: NOW, nameFields: NAME_FIELDS });
    expect(out.split('\n')).toHaveLength(20_002);
  });
});

describe('ID columns at any width', () => {
  // As the sandbox sends apps (team a bare ID) and as a server that nests references does.
  const apps = [
    { publicId: 'ap-oi9uf1jufi', name: 'scheduler-proxy', status: 'deploying', region: 'ap-southeast', team: 'te-5h2era61fl', updatedAt: '2024-04-28T12:00:00Z', runtime: 'docker' },
    { publicId: 'ap-r1q7gd5ctm', name: 'recommendations-dashboard', status: 'running', region: 'us-west', team: 'te-8r5be85qk4', updatedAt: '2024-04-28T12:00:00Z', runtime: 'node' },
  ];
  const table = (width: number, extra: { names?: (id: string) => string | undefined; references?: string[] } = {}) =>
    renderTable(apps, { defaults: ['name', 'status', 'region', 'team', 'updatedAt'], width, color: false, now: NOW, nameFields: NAME_FIELDS, references: ['team'], ...extra });
  const rowsOf = (out: string) => out.trimEnd().split('\n').map((l) => l.split(/\s{2,}/));

  it.each([40, 50, 60, 80, 100])('at %i columns every public ID is whole, and no line is wider', (width) => {
    const out = table(width);
    for (const line of out.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(width);
    expect(out).toContain('ap-oi9uf1jufi');
    expect(out).toContain('ap-r1q7gd5ctm');
    // TEAM is either shown whole or not at all: never "te-5h2era…".
    if (out.includes('TEAM')) expect(out).toContain('te-5h2era61fl');
    expect(out).not.toMatch(/(ap|te)-[a-z0-9]*…/);
  });

  it('at 60 columns drops REGION before cutting an ID, and gives the room to NAME', () => {
    const [header, one, two] = rowsOf(table(60));
    expect(header).toEqual(['PUBLIC ID', 'NAME', 'STATUS', 'TEAM']);
    expect(one).toEqual(['ap-oi9uf1jufi', 'scheduler-proxy', 'deploying', 'te-5h2era61fl']);
    expect(two?.[3]).toBe('te-8r5be85qk4');
  });

  it('drops a reference column before its IDs would be cut, and the name last', () => {
    const [header] = rowsOf(table(34));
    expect(header).toEqual(['PUBLIC ID', 'NAME']);
    const [narrow] = rowsOf(table(20));
    expect(narrow).toEqual(['PUBLIC ID']);
  });

  it('names references only when the names fit without cutting anything; one form per column', () => {
    const named = { names: names({ 'te-5h2era61fl': 'Marketing', 'te-8r5be85qk4': 'Data' }) };
    const wide = rowsOf(table(160, named));
    expect(wide[1]?.[4]).toBe('Marketing (te-5h2era61fl)');
    expect(wide[2]?.[4]).toBe('Data (te-8r5be85qk4)');
    // At 100 columns the names would cut NAME: the width goes to NAME, TEAM shows bare IDs.
    const at100 = rowsOf(table(100, named));
    expect(at100[2]?.[1]).toBe('recommendations-dashboard');
    expect(at100.slice(1).map((r) => r[4])).toEqual(['te-5h2era61fl', 'te-8r5be85qk4']);
    // One name unknown: bare IDs in every row, at any width.
    const some = rowsOf(table(160, { names: names({ 'te-5h2era61fl': 'Marketing' }) }));
    expect(some.slice(1).map((r) => r[4])).toEqual(['te-5h2era61fl', 'te-8r5be85qk4']);
  });

  // Three apps of two teams, the team nested as the server sends it, named or not.
  const withTeams = (...teams: ({ publicId: string; name?: string } | null)[]) =>
    renderTable(
      teams.map((team, i) => ({ publicId: `ap-${i + 1}`, team, name: `app-${i + 1}` })),
      { defaults: ['team', 'name'], width: 80, color: false, now: NOW, nameFields: NAME_FIELDS },
    );

  it('a column where one reference has no name shows bare IDs, and is only as wide as they are', () => {
    expect(withTeams({ publicId: 'te-1', name: 'Acme Corporation' }, { publicId: 'te-2' })).toBe(
      'PUBLIC ID  TEAM  NAME\nap-1       te-1  app-1\nap-2       te-2  app-2\n',
    );
  });

  it('a row without a reference (an empty cell) does not keep the others from their names', () => {
    expect(withTeams({ publicId: 'te-1', name: 'Acme' }, null)).toBe('PUBLIC ID  TEAM         NAME\nap-1       Acme (te-1)  app-1\nap-2                    app-2\n');
  });

  it('names a reference whose "name (ID)" fits within its header too, where no width changes', () => {
    const rows = [{ publicId: 'ap-1', maintainer: { publicId: 'u-1', name: 'Al' } }];
    const out = renderTable(rows, { defaults: ['maintainer'], width: 80, color: false, now: NOW, nameFields: NAME_FIELDS });
    expect(out).toBe('PUBLIC ID  MAINTAINER\nap-1       Al (u-1)\n');
  });

  it('never cuts the IDs of a nested reference column either', () => {
    const rows = [{ publicId: 'en-fuihyfxrpk', name: 'production-eu-west', app: { publicId: 'ap-oi9uf1jufi', name: 'scheduler-proxy' }, status: 'running', region: 'ap-southeast' }];
    const out = renderTable(rows, { defaults: ['name', 'app', 'status', 'region'], width: 42, color: false, now: NOW, nameFields: NAME_FIELDS });
    expect(out).toContain('ap-oi9uf1jufi');
    expect(out).not.toContain('ap-oi9uf1…');
  });
});

describe('the detail view', () => {
  const opts = { width: 60, color: false, now: NOW, nameFields: NAME_FIELDS, names: names({ 'te-1': 'Acme' }) };

  it('flattens nested objects to dotted keys, references as name and ID, times relative and absolute', () => {
    const rows = detailRows(
      {
        publicId: 'ap-1',
        team: 'te-1',
        owner: { publicId: 'pe-1', fullName: 'Ada', role: 'admin' },
        build: { image: 'node:22', env: { NODE_ENV: 'production' } },
        tags: ['a', 'b'],
        ports: [],
        domains: [{ hostname: 'a.test' }],
        updatedAt: '2024-04-28T12:00:00Z',
        empty: {},
        none: null,
      },
      opts,
    );
    expect(rows).toEqual([
      ['publicId', 'ap-1'],
      ['team', 'Acme (te-1)'],
      ['owner', 'Ada (pe-1)'],
      ['owner.role', 'admin'],
      ['build.image', 'node:22'],
      ['build.env.NODE_ENV', 'production'],
      ['tags', 'a, b'],
      ['ports', '[]'],
      ['domains.0.hostname', 'a.test'],
      ['updatedAt', '3 days ago (2024-04-28 12:00 UTC)'],
      ['empty', '{}'],
      ['none', ''],
    ]);
  });

  it('wraps long values under the value column instead of cutting them', () => {
    const text = 'word '.repeat(30).trim();
    const out = renderDetail({ publicId: 'ap-1', description: text }, opts);
    const lines = out.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(60);
    expect(lines.slice(1).map((l) => l.trim()).join(' ').replace(/^description:\s+/, '')).toBe(text);
    expect(wrap('x'.repeat(25), 10)).toEqual(['xxxxxxxxxx', 'xxxxxxxxxx', 'xxxxx']);
  });

  it("shows the object's own public ID bare, even when a name for it is known", () => {
    const rows = detailRows({ publicId: 'ap-1', name: 'web', team: 'te-1' }, { ...opts, names: names({ 'ap-1': 'web', 'te-1': 'Acme' }) });
    expect(rows).toEqual([
      ['publicId', 'ap-1'],
      ['name', 'web'],
      ['team', 'Acme (te-1)'],
    ]);
  });

  it('shows a reference with no name, an empty name or its own ID as name by its ID alone', () => {
    const rows = detailRows(
      { team: { publicId: 'te-2' }, owner: { publicId: 'pe-1', name: '' }, app: { publicId: 'ap-2', name: 'ap-2' } },
      { ...opts, names: undefined },
    );
    expect(rows).toEqual([
      ['team', 'te-2'],
      ['owner', 'pe-1'],
      ['owner.name', ''],
      ['app', 'ap-2'],
    ]);
  });

  it('puts a key too long for the key column on a line of its own, and its value under the value column', () => {
    const out = renderDetail({ publicId: 'ap-1', 'build.environment.variables.NODE_OPTIONS': '--max-old-space-size=4096' }, opts);
    // 40 % of 60 columns: the key column is 24 wide, values start at 26.
    expect(out).toBe(`publicId:                 ap-1\nbuild.environment.variables.NODE_OPTIONS:\n${' '.repeat(26)}--max-old-space-size=4096\n`);
  });

  it('wraps at the width exactly: the spaces after a word take no room, and no line starts with one', () => {
    expect(wrap('aa bb cc', 5)).toEqual(['aa bb', 'cc']);
    expect(wrap('abcde fgh', 5)).toEqual(['abcde', 'fgh']);
    expect(wrap('aaaa  bbbb', 4)).toEqual(['aaaa', 'bbbb']);
    // A word exactly as wide as a line, after another: its space does not make it too wide.
    expect(wrap('xy abcd ef', 4)).toEqual(['xy', 'abcd', 'ef']);
    expect(wrap('xy abcd', 4)).toEqual(['xy', 'abcd']);
    // "description:" makes the key column 12 wide; the value column is the other 46.
    const out = renderDetail({ publicId: 'ap-1', description: `${'x'.repeat(46)} tail` }, opts);
    expect(out).toBe(`publicId:     ap-1\ndescription:  ${'x'.repeat(46)}\n${' '.repeat(14)}tail\n`);
  });

  it('shows a list of IDs under a key named publicId bare too, at any depth', () => {
    const rows = detailRows({ merged: { publicId: ['te-1', 'te-2'] } }, opts);
    expect(rows).toEqual([['merged.publicId', 'te-1, te-2']]);
  });

  it('joins a list of plain values on one line, and flattens a list that holds an object', () => {
    const rows = detailRows({ tags: ['a', 1, null], mixed: ['a', { port: 80 }] }, opts);
    expect(rows).toEqual([
      ['tags', 'a, 1, '],
      ['mixed.0', 'a'],
      ['mixed.1.port', '80'],
    ]);
  });

  it('ends no line with spaces: not an empty value, nor the last line of a value that ends with them', () => {
    const out = renderDetail({ publicId: 'ap-1', none: null, note: 'first line\nsecond line  ' }, opts);
    expect(out).toBe('publicId:  ap-1\nnone:\nnote:      first line\n           second line\n');
  });

  it('makes the keys bold when colour is on, and nothing else; plain without colour', () => {
    const row = { publicId: 'ap-1', status: 'running' };
    expect(renderDetail(row, { ...opts, color: true })).toBe('\u001b[1mpublicId:\u001b[22m  ap-1\n\u001b[1mstatus:\u001b[22m    running\n');
    expect(renderDetail(row, opts)).toBe('publicId:  ap-1\nstatus:    running\n');
  });

  it('gives a character wider than the whole width a line of its own', () => {
    expect(wrap('漢a', 1)).toEqual(['漢', 'a']);
  });

  it('prints nothing for an object with no fields', async () => {
    expect(await print([{}], { format: 'table', shape: 'single', tty: true })).toBe('');
  });

  it('is what get prints for one object on a terminal in table format; a list stays a table', async () => {
    const one = await print([{ publicId: 'ap-1', name: 'web' }], { format: 'table', shape: 'single', tty: true });
    expect(one).toBe('publicId:  ap-1\nname:      web\n');
    const piped = await print([{ publicId: 'ap-1', name: 'web' }], { format: 'table', shape: 'single', tty: false });
    expect(piped).toContain('PUBLIC ID');
  });
});

describe('the name of a reference', () => {
  const known = names({ 'te-1': 'Acme' });

  it('is the one seen before for a bare ID, and none without names', () => {
    expect(referenceName('te-1', known, NAME_FIELDS)).toBe('Acme');
    expect(referenceName('te-1', undefined, NAME_FIELDS)).toBeUndefined();
  });

  it('is none for a number, or for an object that carries neither a name nor a public ID', () => {
    const anything = () => 'Acme';
    expect(referenceName(42, anything, NAME_FIELDS)).toBeUndefined();
    expect(referenceName({ status: 'running' }, anything, NAME_FIELDS)).toBeUndefined();
  });
});

/** A stdout that takes one chunk at a time and says when it has drained. */
function slowStdout(options: { emitClose?: boolean } = {}) {
  const chunks: string[] = [];
  const pending: (() => void)[] = [];
  const stream = new Writable({
    ...options,
    highWaterMark: 1,
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString());
      pending.push(done);
    },
  });
  return { stream, chunks, release: () => pending.splice(0).forEach((done) => done()) };
}

describe('streaming printers', () => {
  for (const format of ['json', 'ndjson', 'tsv'] as const) {
    it(`${format}: writes each page as it comes and waits for drain before taking the next`, async () => {
      const out = slowStdout();
      const io = new IO({ stdout: Object.assign(out.stream, { isTTY: false }), stderr: new Writable({ write: (_c, _e, d) => d() }), env: {} });
      const printer = await createPrinter({ io, format, columns: ['publicId', 'name'], shape: 'list' });
      let resolved = false;
      const first = printer.add([{ publicId: 'ap-1', name: 'a' }]).then(() => (resolved = true));
      await new Promise((r) => setImmediate(r));
      // The page is written at once, but not yet taken: add() waits.
      expect(out.chunks).toHaveLength(1);
      expect(resolved).toBe(false);
      out.release();
      await first;
      expect(resolved).toBe(true);
      const second = printer.add([{ publicId: 'ap-2', name: 'b' }]);
      out.release();
      await new Promise((r) => setImmediate(r));
      out.release();
      await second;
      const end = printer.end('list');
      await new Promise((r) => setImmediate(r));
      out.release();
      await end;
      const text = out.chunks.join('');
      if (format === 'json') expect(JSON.parse(text)).toEqual([{ publicId: 'ap-1', name: 'a' }, { publicId: 'ap-2', name: 'b' }]);
      if (format === 'ndjson') expect(text).toBe('{"publicId":"ap-1","name":"a"}\n{"publicId":"ap-2","name":"b"}\n');
      if (format === 'tsv') expect(text).toBe('ap-1\ta\nap-2\tb\n');
    });
  }

  it('stops waiting for stdout to take a page once it has closed or failed, and leaves no listener behind', async () => {
    // A reader that went away closes stdout; a stream that fails need not emit 'close' as well.
    const ends = [(s: Writable) => s.destroy(), (s: Writable) => s.destroy(new Error('write EPIPE'))];
    for (const [n, end] of ends.entries()) {
      const out = slowStdout({ emitClose: n === 0 });
      const io = new IO({ stdout: Object.assign(out.stream, { isTTY: false }), stderr: new Writable({ write: (_c, _e, d) => d() }), env: {} });
      const printer = await createPrinter({ io, format: 'ndjson' });
      let taken = false;
      const page = printer.add([{ publicId: 'ap-1' }]).then(() => (taken = true));
      await new Promise((r) => setImmediate(r));
      expect(out.stream.listenerCount('drain')).toBe(1);
      end(out.stream);
      await new Promise((r) => setImmediate(r));
      expect(taken).toBe(true);
      await page;
      for (const event of ['drain', 'close', 'error']) expect(out.stream.listenerCount(event)).toBe(0);
    }
  });

  it('leaves no listener behind once stdout has drained', async () => {
    const out = slowStdout();
    const io = new IO({ stdout: Object.assign(out.stream, { isTTY: false }), stderr: new Writable({ write: (_c, _e, d) => d() }), env: {} });
    const printer = await createPrinter({ io, format: 'ndjson' });
    let taken = false;
    const page = printer.add([{ publicId: 'ap-1' }]).then(() => (taken = true));
    await new Promise((r) => setImmediate(r));
    out.release();
    await new Promise((r) => setImmediate(r));
    expect(taken).toBe(true);
    await page;
    for (const event of ['drain', 'close', 'error']) expect(out.stream.listenerCount(event)).toBe(0);
  });

  it('json: a streamed list is byte for byte what the whole list prints', async () => {
    const items = [{ publicId: 'ap-1', nested: { a: [1, 2] } }, { publicId: 'ap-2', s: 'x\ny' }];
    const whole = await print(items, { format: 'json' });
    const streamed = await print(items, { format: 'json', shape: 'list' });
    expect(streamed).toBe(whole);
    expect(await print([], { format: 'json', shape: 'list' })).toBe('[]\n');
  });

  it('warns on stderr about --fields no object has, naming the fields there are', async () => {
    const err: string[] = [];
    const io = new IO({
      stdout: Object.assign(new Writable({ write: (_c, _e, d) => d() }), { isTTY: false }),
      stderr: new Writable({ write: (c: Buffer, _e, d) => (err.push(c.toString()), d()) }),
      env: { NO_COLOR: '1' },
    });
    const printer = await createPrinter({ io, format: 'tsv', fields: ['publicId', 'nosuch', 'team.name'], shape: 'list' });
    await printer.add([{ publicId: 'ap-1', team: { name: 'A' } }, { publicId: 'ap-2', name: 'x' }]);
    await printer.end('list');
    expect(err.join('')).toBe('hostctl: warning: --fields: no object has "nosuch"; the objects have: publicId, team, name.\n');
  });
});

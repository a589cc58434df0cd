import { describe, expect, it } from 'vitest';
import { JsonNumber } from '../../src/output/json.js';
import { displayWidth, fitWidths, headerOf, renderTable, truncate } from '../../src/output/table.js';
import { NOW, print } from './output-support.js';

const APP_COLUMNS = ['name', 'status', 'region', 'team', 'updatedAt'];

const apps = [
  { publicId: 'ap-1', runtime: 'node', name: 'web', status: 'running', region: 'eu-west', team: 'te-1', updatedAt: '2024-04-28T12:00:00Z', instances: 2, config: { a: 1 } },
  { publicId: 'ap-2', runtime: 'go', name: 'worker', status: 'failed', region: 'us-east', team: 'te-2', updatedAt: '2024-05-01T11:55:00Z', instances: 0, config: { a: 2 } },
];

/** The display column at which each cell of `line` starts (cells are split at runs of 2+ spaces). */
function cellStarts(line: string): number[] {
  const starts: number[] = [];
  const re = /(?:^|\s{2,})(\S)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) starts.push(displayWidth(line.slice(0, m.index + m[0].length - 1)));
  return starts;
}

describe('table columns', () => {
  it('shows publicId, the default columns present, then other scalar fields; nested values are not extra columns', async () => {
    const out = await print(apps, { format: 'table', columns: APP_COLUMNS, width: 200, now: () => NOW });
    const [header, ...rows] = out.trimEnd().split('\n');
    expect(header?.split(/\s{2,}/)).toEqual(['PUBLIC ID', 'NAME', 'STATUS', 'REGION', 'TEAM', 'UPDATED AT', 'RUNTIME', 'INSTANCES']);
    expect(rows[0]?.split(/\s{2,}/)).toEqual(['ap-1', 'web', 'running', 'eu-west', 'te-1', '3 days ago', 'node', '2']);
    expect(rows[1]?.split(/\s{2,}/)).toEqual(['ap-2', 'worker', 'failed', 'us-east', 'te-2', '5 minutes ago', 'go', '0']);
  });

  it('adds other fields only while the terminal is wide enough', async () => {
    const out = await print(apps, { format: 'table', columns: APP_COLUMNS, width: 72, now: () => NOW });
    const header = out.split('\n')[0] ?? '';
    expect(header.split(/\s{2,}/)).toEqual(['PUBLIC ID', 'NAME', 'STATUS', 'REGION', 'TEAM', 'UPDATED AT', 'RUNTIME']);
    for (const line of out.trimEnd().split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(72);
  });

  it('skips default columns the data does not have', async () => {
    const out = await print([{ publicId: 'te-1', name: 'Acme' }], { format: 'table', columns: ['name', 'plan', 'createdAt'], now: () => NOW });
    expect(out).toBe('PUBLIC ID  NAME\nte-1       Acme\n');
  });

  it('uses --fields as the columns, in that order, dotted paths included', async () => {
    const items = [{ publicId: 'ap-1', name: 'web', team: { name: 'Acme', plan: 'pro' } }];
    const out = await print(items, { format: 'table', columns: APP_COLUMNS, fields: ['team.name', 'publicId', 'missing'], now: () => NOW });
    expect(out).toBe('TEAM.NAME  PUBLIC ID  MISSING\nAcme       ap-1\n');
  });

  it('shows nested values as compact JSON when asked for', async () => {
    const out = await print(apps.slice(0, 1), { format: 'table', fields: ['publicId', 'config'], now: () => NOW });
    expect(out.split('\n')[1]).toBe('ap-1       {"a":1}');
  });

  it('prints nothing at all for an empty list', async () => {
    expect(await print([], { format: 'table', columns: APP_COLUMNS })).toBe('');
  });

  it('keeps a field that is null in some rows as a column, and one whose numbers JavaScript cannot hold exactly', async () => {
    const rows = [
      { publicId: 'ap-1', note: null, bytes: new JsonNumber('12345678901234567890') },
      { publicId: 'ap-2', note: 'x', bytes: 1 },
    ];
    expect(await print(rows, { format: 'table' })).toBe('PUBLIC ID  NOTE  BYTES\nap-1             12345678901234567890\nap-2       x     1\n');
  });

  it('shows a nested reference as a column of its own when the resource declares no columns', async () => {
    const rows = [{ publicId: 'ap-1', team: { publicId: 'te-1', name: 'Acme' } }];
    expect(await print(rows, { format: 'table' })).toBe('PUBLIC ID  TEAM\nap-1       Acme (te-1)\n');
  });

  it('gives objects with nothing but nested values a column per field, as compact JSON', async () => {
    const rows = [{ config: { a: 1 }, tags: ['x'] }];
    expect(await print(rows, { format: 'table' })).toBe('CONFIG   TAGS\n{"a":1}  ["x"]\n');
  });

  it('shortens a long hex digest to 7 characters, but not a word of the letters a to f alone', async () => {
    const rows = [{ publicId: 'dp-1', commit: 'ce58857075056c5b', label: 'deadbeefcafe' }];
    expect(await print(rows, { format: 'table' })).toBe('PUBLIC ID  COMMIT   LABEL\ndp-1       ce58857  deadbeefcafe\n');
  });
});

describe('table widths', () => {
  it('cuts long cells with "…" so that every line fits the terminal', async () => {
    const items = [{ publicId: 'ap-1', name: 'x'.repeat(200), status: 'running' }];
    const out = await print(items, { format: 'table', columns: ['name', 'status'], width: 40 });
    const lines = out.trimEnd().split('\n');
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(40);
    expect(lines[1]).toMatch(/^ap-1 {2,}x+… {2}running$/);
  });

  it('keeps columns aligned with CJK and emoji, measured in display width', async () => {
    const items = [
      { publicId: 'ap-1', name: '漢字のアプリケーション名前がとても長い', status: 'running', region: 'eu' },
      { publicId: 'ap-2', name: '🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀', status: 'failed', region: 'us' },
      { publicId: 'ap-3', name: 'plain', status: 'pending', region: 'ap' },
    ];
    const out = await print(items, { format: 'table', columns: ['name', 'status', 'region'], width: 40 });
    const lines = out.trimEnd().split('\n');
    const starts = lines.map(cellStarts);
    for (const s of starts) expect(s).toEqual(starts[0]);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(40);
    expect(lines[1]).toContain('…');
  });

  it('truncate never splits a wide character or an emoji sequence and never exceeds the width', () => {
    expect(truncate('漢字漢字', 5)).toBe('漢字…');
    expect(truncate('漢字漢字', 4)).toBe('漢…');
    expect(truncate('漢字漢字', 8)).toBe('漢字漢字');
    expect(truncate('👩‍💻👩‍💻👩‍💻', 4)).toBe('👩‍💻…');
    expect(truncate('abcdef', 1)).toBe('…');
    for (let w = 1; w < 12; w++) expect(displayWidth(truncate('a漢b🚀c字👩‍💻d', w))).toBeLessThanOrEqual(w);
  });

  it('truncate cuts a huge cell of wide characters walking only what it keeps (it would not finish otherwise)', () => {
    expect(truncate('漢'.repeat(200_000), 9)).toBe('漢漢漢漢…');
  });

  it('fitWidths keeps narrow columns whole and shares the rest', () => {
    expect(fitWidths([4, 10, 6], 30)).toEqual([4, 10, 6]);
    expect(fitWidths([4, 100, 100], 34)).toEqual([4, 15, 15]);
    expect(fitWidths([4, 100, 7], 30)).toEqual([4, 19, 7]);
  });

  it('turns field names into headers', () => {
    expect(headerOf('publicId')).toBe('PUBLIC ID');
    expect(headerOf('last4')).toBe('LAST4');
    expect(headerOf('team.name')).toBe('TEAM.NAME');
    expect(headerOf('pending_verification')).toBe('PENDING VERIFICATION');
  });
});

describe('table colour and safety', () => {
  it('has no escape codes without colour', async () => {
    const out = await print(apps, { format: 'table', columns: APP_COLUMNS, color: false, now: () => NOW });
    expect(out).not.toContain('\u001b');
  });

  it('makes the header bold and colours status values when colour is on', async () => {
    const out = await print(apps, { format: 'table', columns: APP_COLUMNS, color: true, width: 200, now: () => NOW });
    expect(out).toContain('\u001b[1mPUBLIC ID\u001b[22m');
    expect(out).toContain('\u001b[32mrunning\u001b[39m');
    expect(out).toContain('\u001b[31mfailed\u001b[39m');
    expect(out).not.toContain('\u001b[32mweb');
  });

  it('prints hostile names harmlessly and on one line', async () => {
    const items = [
      { publicId: 'ap-1', name: '\u001b]0;pwned\u0007evil', status: '\u001b[31mrunning' },
      { publicId: 'ap-2', name: 'two\nlines\ttab\u202eoverride\u0085', status: 'ok' },
    ];
    const out = await print(items, { format: 'table', columns: ['name', 'status'] });
    expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    const rows = out.trimEnd().split('\n').map((line) => line.split(/\s{2,}/));
    expect(rows).toEqual([
      ['PUBLIC ID', 'NAME', 'STATUS'],
      ['ap-1', 'evil', 'running'],
      ['ap-2', 'two lines taboverride', 'ok'],
    ]);
  });
});

describe('table edges', () => {
  const opts = { defaults: [] as string[], width: 80, color: false, now: NOW };

  it('colours every status the table knows, whatever its case, in status, state and *.status columns only', () => {
    const colours: Record<string, string[]> = {
      '\u001b[32m': ['running', 'active', 'succeeded', 'success', 'ready', 'healthy', 'issued', 'verified'],
      '\u001b[33m': ['pending', 'pending_verification', 'building', 'deploying', 'queued', 'starting', 'provisioning', 'in_progress'],
      '\u001b[31m': ['failed', 'error', 'errored', 'crashed', 'unhealthy'],
      '\u001b[2m': ['stopped', 'sleeping', 'canceled', 'cancelled'],
    };
    const close: Record<string, string> = { '\u001b[32m': '\u001b[39m', '\u001b[33m': '\u001b[39m', '\u001b[31m': '\u001b[39m', '\u001b[2m': '\u001b[22m' };
    for (const [open, statuses] of Object.entries(colours)) {
      for (const status of statuses) {
        const out = renderTable([{ publicId: 'ap-1', status }], { ...opts, color: true });
        expect(out.split('\n')[1]).toBe(`ap-1       ${open}${status}${close[open]}`);
      }
    }
    const rows = [{ publicId: 'ap-1', status: 'Running', state: 'FAILED', build: { status: 'queued' }, name: 'running', phase: 'running' }];
    const out = renderTable(rows, { ...opts, fields: ['status', 'state', 'build.status', 'name', 'phase'], color: true });
    expect(out.split('\n')[1]).toBe('\u001b[32mRunning\u001b[39m  \u001b[31mFAILED\u001b[39m  \u001b[33mqueued\u001b[39m        running  running');
    // A status the table does not know, or one Object.prototype has, stays as it is.
    const odd = renderTable([{ publicId: 'ap-1', status: 'constructor' }, { publicId: 'ap-2', status: 'paused' }], { ...opts, color: true });
    expect(odd.split('\n').slice(1)).toEqual(['ap-1       constructor', 'ap-2       paused', '']);
  });

  it('accessible output separates columns with " | ", room for it included, and cuts what does not fit', () => {
    const rows = [
      { publicId: 'ap-1', name: 'web', status: 'running' },
      { publicId: 'ap-2', name: 'a-much-longer-name-than-fits', status: 'failed' },
    ];
    expect(renderTable(rows, { ...opts, defaults: ['name', 'status'], plain: true })).toBe(
      'PUBLIC ID | NAME                         | STATUS\n' + 'ap-1      | web                          | running\n' + 'ap-2      | a-much-longer-name-than-fits | failed\n',
    );
    const narrow = renderTable(rows, { ...opts, defaults: ['name', 'status'], plain: true, width: 36 });
    expect(narrow).toBe('PUBLIC ID | NAME           | STATUS\n' + 'ap-1      | web            | running\n' + 'ap-2      | a-much-longer… | failed\n');
  });

  it('a list of plain values is one value a line, cut to the width', () => {
    expect(renderTable(['web', 'x'.repeat(20), 7, null], { ...opts, width: 10 })).toBe(`web\n${'x'.repeat(9)}…\n7\n\n`);
    // Shown as any cell: a digest short, a time relative.
    expect(renderTable(['ce58857075056c5ba1a26de298c1c44cf374d4f8', '2024-04-28T12:00:00Z'], opts)).toBe('ce58857\n3 days ago\n');
    // Never narrower than three columns.
    expect(renderTable(['abcdef'], { ...opts, width: 1 })).toBe('ab…\n');
  });

  it('without name fields given, a reference is named by its "name", and NAME is the column kept last', () => {
    const rows = [{ publicId: 'ap-1', name: 'web-frontend', region: 'eu-west-1', team: { publicId: 'te-1', name: 'Acme' } }];
    expect(renderTable(rows, { ...opts, defaults: ['name', 'region', 'team'] })).toBe(
      'PUBLIC ID  NAME          REGION     TEAM\n' + 'ap-1       web-frontend  eu-west-1  Acme (te-1)\n',
    );
    // REGION, declared first, goes before NAME.
    expect(renderTable(rows, { ...opts, defaults: ['region', 'name', 'team'], width: 30 })).toBe('PUBLIC ID  NAME          TEAM\n' + 'ap-1       web-frontend  te-1\n');
  });

  it('a --fields column of nested public IDs (team.publicId) is never cut; the other columns are', () => {
    const rows = [{ publicId: 'ap-1', name: 'x'.repeat(40), team: { publicId: 'te-123456789' } }];
    expect(renderTable(rows, { ...opts, fields: ['name', 'team.publicId'], width: 20 })).toBe('NAME  TEAM.PUBLIC ID\n' + 'xxx…  te-123456789\n');
  });

  it('a public ID as wide as the terminal is kept whole (the other columns go); a wider one is cut like any cell', () => {
    const id = `ap-${'0'.repeat(17)}`;
    expect(renderTable([{ publicId: id, name: 'web' }], { ...opts, defaults: ['name'], width: 20 })).toBe(`PUBLIC ID\n${id}\n`);
    expect(renderTable([{ publicId: `${id}99`, name: 'web' }], { ...opts, defaults: ['name'], width: 20 })).toBe(`PUBLIC ID       NAME\n${id.slice(0, 13)}…  web\n`);
  });

  it('a table exactly as wide as the terminal keeps every column', () => {
    expect(renderTable([{ publicId: 'ap-1', name: 'web' }], { ...opts, defaults: ['name'], width: 15 })).toBe('PUBLIC ID  NAME\nap-1       web\n');
  });

  it('the name goes last even when it is the first column (no public ID): a reference column goes before it', () => {
    const rows = [{ name: 'web-frontend', team: 'te-1' }];
    expect(renderTable(rows, { ...opts, defaults: ['name', 'team'], references: ['team'], width: 14 })).toBe('NAME\nweb-frontend\n');
  });

  it('the name goes last even when its column holds IDs', () => {
    const rows = [{ publicId: 'ap-1', team: 'te-1', name: 'web-frontend' }];
    expect(renderTable(rows, { ...opts, defaults: ['team', 'name'], references: ['team', 'name'], width: 24 })).toBe('PUBLIC ID  NAME\nap-1       web-frontend\n');
  });

  it('objects without a public ID keep their last column, cut, however narrow the terminal', () => {
    expect(renderTable([{ description: 'x'.repeat(100), kind: 'note' }], { ...opts, width: 20 })).toBe(`DESCRIPTION\n${'x'.repeat(19)}…\n`);
  });

  it("the object's own public ID is shown whole and bare: not named, even by a name known for it, and not cut like a digest", () => {
    const id = 'a1b2c3d4e5f6a7b8';
    const out = renderTable([{ publicId: id, name: 'web' }], { ...opts, defaults: ['name'], names: (seen) => (seen === id ? 'web' : undefined) });
    expect(out).toBe(`PUBLIC ID         NAME\n${id}  web\n`);
  });

  it('truncate: nothing at width 0 or less, ASCII cut at the width with "…"', () => {
    expect(truncate('abc', 0)).toBe('');
    expect(truncate('abc', -1)).toBe('');
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('abcd', 4)).toBe('abcd');
    expect(truncate('é漢b', 3)).toBe('é…');
  });

  it('fitWidths gives the columns that are cut what is left, one more to the first ones, never less than 3', () => {
    expect(fitWidths([100, 100, 100], 32)).toEqual([11, 11, 10]);
    // A column exactly as wide as the share keeps its width; the rest is shared.
    expect(fitWidths([10, 100], 21)).toEqual([10, 11]);
    expect(fitWidths([100, 100], 4)).toEqual([3, 3]);
    expect(fitWidths([], 10)).toEqual([]);
    expect(fitWidths([5, 5], 10)).toEqual([5, 5]);
  });

  it('headers: words split at a lower-case letter or digit before a capital, runs of _ and - as one space, on one line', () => {
    expect(headerOf('updatedAt')).toBe('UPDATED AT');
    expect(headerOf('ipv4Address')).toBe('IPV4 ADDRESS');
    expect(headerOf('HTTPStatus')).toBe('HTTPSTATUS');
    expect(headerOf('a__b--c-_d')).toBe('A B C D');
    expect(headerOf('two\nlines\t\there')).toBe('TWO LINES HERE');
  });

  it('displayWidth counts printable ASCII by length and the rest by its columns', () => {
    expect(displayWidth('')).toBe(0);
    expect(displayWidth('a b~')).toBe(4);
    expect(displayWidth('漢a')).toBe(3);
    expect(displayWidth('a漢')).toBe(3);
  });
});

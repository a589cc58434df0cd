// Hostile data end to end (issue 8): objects whose names carry terminal escape sequences,
// C1 controls, bidi overrides, tabs and newlines, and very long or very wide text, planted
// in the sandbox and read back through hostctl in-process. Table (on a fake terminal)
// and tsv output carry nothing a terminal would act on and stay aligned; JSON output is
// exactly what the server stored. The output layer's property test: test/unit/output-property.test.ts.

import { describe, expect } from 'vitest';
import stringWidth from 'string-width';
import { cliTest } from '../support/fixtures.js';
import { runCli, runInPty } from '../support/inproc.js';
import { platformOf } from '../support/servers.js';

// C0 and C1 controls (ESC, BEL, CSI U+009B, OSC U+009D… included), DEL, and the bidi
// controls, but for the line structure each format writes itself.
const UNSAFE_BUT_TAB_NEWLINE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const UNSAFE_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const HOSTILE: { publicId: string; name: string }[] = [
  { publicId: 'ap-hostile-osc', name: '\u001b]0;pwned\u0007title \u001b]8;;https://evil.invalid/\u001b\\link\u001b]8;;\u001b\\' },
  { publicId: 'ap-hostile-csi', name: '\u001b[31mred\u001b[0m \u001b[2J\u001b[Hclear \u001b[1000;1000Hmove \u001b[?1049h' },
  { publicId: 'ap-hostile-c1', name: 'c1 \u009b31mcsi\u009b0m \u009d0;osc\u009c \u0085nel \u0090dcs\u009c' },
  { publicId: 'ap-hostile-bidi', name: 'invoice\u202egpj.exe\u202c \u2066iso\u2069 \u200fmark\u200e \u061calm' },
  { publicId: 'ap-hostile-ws', name: 'tab\there\nnew line\r\ncrlf\u000bvt\u000cff\u0000nul\u007fdel\bbs' },
  { publicId: 'ap-hostile-long', name: `${'L'.repeat(3000)}end` },
  { publicId: 'ap-hostile-cjk', name: '漢字のアプリケーション名前'.repeat(8) },
  { publicId: 'ap-hostile-emoji', name: `${'🚀🔥'.repeat(15)} café` },
];
const IDS = HOSTILE.map((o) => o.publicId);
const STATUS = 'fine';

// The file's sandbox, with the hostile objects planted once.
const test = cliTest()
  .extend('server', { scope: 'file' }, async ({ sandbox }) => {
    const server = platformOf(sandbox);
    await server.plant(
      'apps',
      HOSTILE.map((o) => ({ ...o, status: STATUS, region: 'eu\u001b[5mblink', team: 'te-hostile' })),
    );
    await server.plant('apps', [{ publicId: 'ap-hostile-proto', name: '__proto__', status: 'constructor', region: 'toString' }]);
    return server;
  })
  .extend('env', ({ server, config }) => () => ({ HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token, HOSTCTL_CONFIG_DIR: config.path }));

describe('hostile names', () => {
  test('json: exactly what the server stored, every control character escaped', async ({ env, server }) => {
    const r = await runCli(['apps', 'get', ...IDS, '--json'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(UNSAFE_BUT_NEWLINE);
    const stored = (await server.all('apps')).filter((o) => IDS.includes(String(o.publicId)));
    expect(stored).toHaveLength(IDS.length);
    const byId = new Map(stored.map((o) => [o.publicId, o]));
    expect(JSON.parse(r.stdout)).toEqual(IDS.map((id) => byId.get(id)));
    // And the names are the ones planted, not something the sandbox cleaned on the way.
    expect((JSON.parse(r.stdout) as { name: string }[]).map((o) => o.name)).toEqual(HOSTILE.map((o) => o.name));
  });

  test('tsv: no control byte but its own tabs and newlines; one line and the same number of cells per object', async ({ env }) => {
    const r = await runCli(['apps', 'get', ...IDS, '-o', 'tsv'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(UNSAFE_BUT_TAB_NEWLINE);
    const lines = r.stdout.replace(/\n$/, '').split('\n');
    expect(lines).toHaveLength(IDS.length);
    const cells = lines.map((l) => l.split('\t'));
    for (const row of cells) expect(row).toHaveLength(cells[0]?.length ?? 0);
    expect(cells.map((row) => row[0])).toEqual(IDS);
    const name = (id: string) => cells[IDS.indexOf(id)]?.[1];
    // Tabs and newlines inside a value are escaped, not dropped; long and wide text is whole.
    expect(name('ap-hostile-ws')).toBe('tab\\there\\nnew line\\r\\ncrlfvtffnuldelbs');
    expect(name('ap-hostile-long')).toBe(HOSTILE[5]?.name);
    expect(name('ap-hostile-cjk')).toBe(HOSTILE[6]?.name);
    expect(name('ap-hostile-emoji')).toBe(HOSTILE[7]?.name);
    // A sequence goes whole: its text is readable, its parameters are not left behind.
    expect(name('ap-hostile-csi')).toBe('red clear move ');
    expect(name('ap-hostile-bidi')).toBe('invoicegpj.exe iso mark alm');
    for (const row of cells) expect(row[2]).toBe(STATUS);
  });

  for (const columns of [80, 43]) {
    test(`table on a ${columns}-column terminal: nothing a terminal acts on, every line fits, columns aligned`, async ({ env }) => {
      // -q: no spinner and no colour, so every byte the terminal receives is the table's.
      const r = await runInPty(['apps', 'get', ...IDS, '-q', '--fields', 'publicId,name,status'], { env: env(), columns });
      expect(r.code, r.stdout).toBe(0);
      // The terminal's own line discipline turns \n into \r\n; nothing else may be a control.
      const text = r.stdout.replace(/\r\n/g, '\n');
      expect(text).not.toMatch(UNSAFE_BUT_NEWLINE);
      const lines = text.replace(/\n$/, '').split('\n');
      expect(lines).toHaveLength(IDS.length + 1);
      const [header, ...rows] = lines as [string, ...string[]];
      expect(header).toMatch(/^PUBLIC ID +NAME +STATUS$/);
      for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(columns);
      // Aligned: in every row, the name starts where NAME does and the status where STATUS
      // does, counted in terminal columns (CJK and emoji are two wide).
      const at = (line: string, text: string) => stringWidth(line.slice(0, line.lastIndexOf(text)));
      const nameCol = at(header, 'NAME');
      const statusCol = at(header, 'STATUS');
      rows.forEach((row, i) => {
        expect(row.startsWith(`${IDS[i]} `), row).toBe(true);
        expect(row.endsWith(STATUS), row).toBe(true);
        expect(at(row, STATUS), row).toBe(statusCol);
        expect(stringWidth(row.slice(0, row.search(/(?<=^\S+ +)\S/))), row).toBe(nameCol);
      });
      // Cut, not wrapped: the long names end in an ellipsis.
      expect(rows[IDS.indexOf('ap-hostile-long')]).toMatch(/L…\s+fine$/);
      expect(rows[IDS.indexOf('ap-hostile-cjk')]).toMatch(/…\s+fine$/);
    });
  }

  test('table with the default columns: no control byte, fits the width', async ({ env }) => {
    const r = await runInPty(['apps', 'get', ...IDS, '-q'], { env: env(), columns: 100 });
    expect(r.code, r.stdout).toBe(0);
    const text = r.stdout.replace(/\r\n/g, '\n');
    expect(text).not.toMatch(UNSAFE_BUT_NEWLINE);
    expect(text).toMatch(/^PUBLIC ID +NAME +STATUS +REGION/);
    expect(text).toContain('eublink');
    for (const line of text.split('\n')) expect(stringWidth(line)).toBeLessThanOrEqual(100);
  });

  test('a status named like a member of Object.prototype ("constructor") is plain text, in colour too', async ({ env }) => {
    const r = await runInPty(['apps', 'get', 'ap-hostile-proto'], { env: { ...env(), FORCE_COLOR: '1' }, columns: 80 });
    expect(r.code, r.stdout).toBe(0);
    // One object on a terminal: the detail view.
    const text = r.stdout.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
    expect(text).toMatch(/publicId: +ap-hostile-proto$/m);
    expect(text).toMatch(/^name: +__proto__$/m);
    expect(text).toMatch(/^status: +constructor$/m);
    expect(text).toMatch(/^region: +toString$/m);
    const list = await runInPty(['apps', 'list', '--all'], { env: { ...env(), FORCE_COLOR: '1' }, columns: 200 });
    expect(list.stdout.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')).toMatch(/ap-hostile-proto +__proto__ +constructor +toString/);
  });

  test('the error path too: a hostile ID typed by the user is shown harmlessly', async ({ env }) => {
    const r = await runCli(['apps', 'get', 'ap-\u001b]0;pwned\u0007'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(UNSAFE_BUT_NEWLINE);
  });
});

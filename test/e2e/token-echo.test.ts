// The token never printed, by the program users run: the built CLI in a process of its
// own (which starts knowing no secret but its run's), against a server that echoes the
// token back everywhere it can — the body of a page, its headers, the Link to the next
// page, a redirect's Location and an error's text — on stdout, stderr and with -v.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tmpDir } from '../support/cli.js';
import { NO_PROXY_ENV, startHostile, type HostileServer } from '../support/hostile-server.js';

const TOKEN = 'hct_e2eEcho_Zq81mN4pR7sT2vW9';
/** How the sink shows it: four stars and its last four. */
const MASKED = `****${TOKEN.slice(-4)}`;

let server: HostileServer;

beforeAll(async () => {
  server = await startHostile((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const auth = req.headers.authorization ?? '';
    const echo = auth.replace(/^Bearer /, '');
    // A redirect that carries the token in its query, and the page it leads to.
    if (url.pathname === '/v1/apps' && !url.searchParams.has('after') && !url.searchParams.has('moved')) {
      res.writeHead(302, { location: `/v1/apps?moved=${echo.toUpperCase()}`, 'x-echo': auth, 'content-length': '0' });
      res.end();
      return;
    }
    if (url.pathname === '/v1/apps' && url.searchParams.has('moved')) {
      res.writeHead(200, {
        'content-type': 'application/json',
        'x-echo': auth,
        link: `</v1/apps?after=${echo}>; rel="next"`,
      });
      res.end(JSON.stringify([{ publicId: 'ap-echo00001', name: `first ${echo}`, region: echo.toLowerCase() }]));
      return;
    }
    if (url.pathname === '/v1/apps') {
      res.writeHead(200, { 'content-type': 'application/json', 'x-echo': echo });
      res.end(JSON.stringify([{ publicId: 'ap-echo00002', name: `second ${echo}`, region: 'eu' }]));
      return;
    }
    res.writeHead(500, { 'content-type': 'application/problem+json', 'x-echo': auth });
    res.end(JSON.stringify({ title: `Broken for ${echo}`, detail: `could not use ${auth} (${echo.toLowerCase()})` }));
  });
});

const dirs: { cleanup(): void }[] = [];
afterAll(async () => {
  await server.close();
  for (const d of dirs) d.cleanup();
});

/** A world of its own for each run: HOME, XDG dirs and config dir, all empty. */
function env() {
  const homeDir = tmpDir('echo-home-');
  const configDir = tmpDir('echo-config-');
  dirs.push(homeDir, configDir);
  const home = homeDir.path;
  return {
    ...NO_PROXY_ENV,
    HOME: home,
    XDG_CONFIG_HOME: `${home}/.config`,
    XDG_STATE_HOME: `${home}/.local/state`,
    XDG_CACHE_HOME: `${home}/.cache`,
    HOSTCTL_CONFIG_DIR: configDir.path,
    HOSTCTL_TOKEN: TOKEN,
    HOSTCTL_BASE_URL: server.baseUrl,
  };
}

/** No spelling of the token, nor a long piece of it, in `text`. */
function expectNoToken(text: string, context: string): void {
  const lower = text.toLowerCase();
  expect(lower, context).not.toContain(TOKEN.toLowerCase());
  // A piece cut from the front (a table cell) or the back would leak most of it too.
  expect(lower, context).not.toContain(TOKEN.slice(0, 14).toLowerCase());
  expect(lower, context).not.toContain(TOKEN.slice(-14).toLowerCase());
}

describe('a server that echoes the token, to the built CLI', () => {
  it.each([
    ['a table', ['apps', 'list', '--all']],
    ['JSON', ['apps', 'list', '--all', '--json']],
    ['NDJSON', ['apps', 'list', '--all', '-o', 'ndjson']],
  ])('never prints it in %s on stdout, nor on stderr with -v (body, headers, Link, redirect)', async (_what, args) => {
    const r = await runCli([...args, '-v'], { env: env() });
    const context = `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
    expect(r.code, context).toBe(0);
    // The echoes did reach the output, masked: the body on stdout, the rest in the -v log.
    expect(r.stdout, context).toContain('ap-echo00002');
    expect(r.stdout, context).toContain(MASKED);
    expect(r.stderr, context).toMatch(/< x-echo: Bearer \*\*\*\*/);
    expect(r.stderr, context).toMatch(/< location: \/v1\/apps\?moved=\*\*\*\*/);
    expect(r.stderr, context).toMatch(/< link: <\/v1\/apps\?after=\*\*\*\*/);
    expect(r.stderr, context).toMatch(/> GET \S+\/v1\/apps\?after=\*\*\*\*/);
    expectNoToken(r.stdout, context);
    expectNoToken(r.stderr, context);
  });

  it.each([[[]], [['-v']], [['--json']]])('never prints it in an error (%j): the title, the detail, the headers', async (extra) => {
    const r = await runCli(['api', '/broken', ...extra], { env: env() });
    const context = `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
    expect(r.code, context).not.toBe(0);
    expect(`${r.stdout}${r.stderr}`, context).toContain(MASKED);
    expectNoToken(r.stdout, context);
    expectNoToken(r.stderr, context);
  });
});

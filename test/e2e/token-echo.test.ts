// The token never printed, by the program users run: the built CLI in a process of its
// own (which starts knowing no secret but its run's), against a server that echoes the
// token back everywhere it can — the body of a page, its headers, the Link to the next
// page, a redirect's Location and an error's text — on stdout, stderr and with -v.

import { describe, expect } from 'vitest';
import { e2eTest, type Env } from '../support/fixtures.js';
import type { Behaviour } from '../support/hostile-server.js';

const TOKEN = 'hct_e2eEcho_Zq81mN4pR7sT2vW9';
/** How the sink shows it: four stars and its last four. */
const MASKED = `****${TOKEN.slice(-4)}`;

/** Echoes the token it is sent everywhere it can. */
const echoing: Behaviour = (req, res) => {
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
};

const test = e2eTest()
  .extend('runEnv', (): Env => ({ HOSTCTL_TOKEN: TOKEN }))
  // The echoing server, with every run of the test aimed at it.
  .extend('echo', async ({ hostctl, hostile }) => {
    const server = await hostile(echoing);
    return (args: string[]) => hostctl(args, { HOSTCTL_BASE_URL: server.baseUrl });
  });

/** No spelling of the token, nor a long piece of it, in `text`. */
function expectNoToken(text: string, context: string): void {
  const lower = text.toLowerCase();
  expect(lower, context).not.toContain(TOKEN.toLowerCase());
  // A piece cut from the front (a table cell) or the back would leak most of it too.
  expect(lower, context).not.toContain(TOKEN.slice(0, 14).toLowerCase());
  expect(lower, context).not.toContain(TOKEN.slice(-14).toLowerCase());
}

describe('a server that echoes the token, to the built CLI', () => {
  test.for([
    ['a table', ['apps', 'list', '--all']],
    ['JSON', ['apps', 'list', '--all', '--json']],
    ['NDJSON', ['apps', 'list', '--all', '-o', 'ndjson']],
  ] as const)('never prints it in %s on stdout, nor on stderr with -v (body, headers, Link, redirect)', async ([, args], { echo }) => {
    const r = await echo([...args, '-v']);
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

  test.for([[[]], [['-v']], [['--json']]] as const)('never prints it in an error (%j): the title, the detail, the headers', async ([extra], { echo }) => {
    const r = await echo(['api', '/broken', ...extra]);
    const context = `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
    expect(r.code, context).not.toBe(0);
    expect(`${r.stdout}${r.stderr}`, context).toContain(MASKED);
    expectNoToken(r.stdout, context);
    expectNoToken(r.stderr, context);
  });
});

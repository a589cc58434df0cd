// The npm package as a user gets it: `npm pack` (of the dist/ that `npm test` just built),
// then `npm install -g <tarball>` into an empty prefix, from the local npm cache where it
// can. The tarball holds what a user needs and nothing of the build machine; the install
// pulls a handful of packages; the installed hostctl passes the smoke layer, and its
// completion scripts and every man page package.json declares are in place. The same
// tarball, installed into a consumer project outside the repository, is the library: a
// strict TypeScript program type-checks against its declarations and runs against the
// sandbox and the independent alt server.

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCRIPT_FILES } from '../../src/commands/completion.js';
import { filesContaining, ROOT, runProcess, tmpDir } from '../support/cli.js';
import { startSandboxHere } from '../support/sandbox-here.js';
import { startAlt } from '../support/servers.js';
import { smokeLayer } from '../support/smoke.js';

interface PackageJson {
  version: string;
  dependencies?: Record<string, string>;
  man?: string | string[];
  directories?: { man?: string };
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageJson;

/** npm's own environment (npm test sets npm_config_*), which must not steer these npm runs. */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && !k.startsWith('HOSTCTL_')) env[k] = v;
  return env;
}

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, { cwd, env: npmEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 });
}

/** The man pages package.json declares: `man` (a file or a list), or every file in `directories.man`. */
function declaredManPages(): string[] {
  if (pkg.man !== undefined) return ([] as string[]).concat(pkg.man).map((p) => p.replace(/^\.\//, ''));
  const dir = pkg.directories?.man;
  if (!dir) return [];
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.\d\w*$/.test(e.name))
    .map((e) => join(e.parentPath, e.name).slice(ROOT.length + 1));
}

/** npm links hostctl.1 (or hostctl.1.gz) as <prefix>/share/man/man1/hostctl.1. */
const manLink = (prefix: string, page: string) => join(prefix, 'share', 'man', `man${/\.(\d)\w*(\.gz)?$/.exec(page)?.[1] ?? '1'}`, basename(page));

let scratch: { path: string; cleanup(): void };
let prefix: string;
let installedDir: string;
let tarballFiles: string[];
let unpacked: string;
let tarball: string;

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'hostctl.cjs'))) throw new Error('dist/ is not built: run "npm run build" (npm test does).');
  scratch = tmpDir('hostctl-package-');
  // --ignore-scripts: `prepare` would rebuild dist/ under the tests that are running it.
  const packed = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', scratch.path], ROOT)) as { filename: string; files: { path: string }[] }[];
  tarball = join(scratch.path, packed[0]?.filename ?? '');
  tarballFiles = (packed[0]?.files ?? []).map((f) => f.path);
  unpacked = join(scratch.path, 'unpacked');
  mkdirSync(unpacked);
  execFileSync('tar', ['-xzf', tarball, '-C', unpacked]);

  prefix = join(scratch.path, 'prefix');
  npm(['install', '-g', tarball, '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund'], scratch.path);
  installedDir = join(prefix, 'lib', 'node_modules', 'hostctl');
}, 240_000);
afterAll(() => scratch?.cleanup());

describe('the packed tarball', () => {
  it('holds the built program, the completions, the man pages and the guides the help points to, and nothing else', () => {
    const allowed = /^(package\.json|README\.md|LICENSE(\.\w+)?|bin\/[^/]+|dist\/[^/]+\.cjs(\.cache)?|dist\/chunks\/[^/]+\.(cjs|wasm)|dist\/lib\/(chunks\/)?[^/]+\.js|dist\/lib\/[^/]+\.d\.ts|completions\/[^/]+|examples\/[^/]+\.mjs|man\/.+|docs\/(authentication|commands|economy|fleet|install|library|mcp|sandbox|status)\.md)$/;
    expect(tarballFiles.filter((f) => !allowed.test(f))).toEqual([]);
    expect(tarballFiles).toEqual(expect.arrayContaining(['bin/hostctl.js', 'dist/hostctl.cjs', 'dist/hostctl.cjs.cache', 'dist/complete.cjs', 'dist/complete.cjs.cache', 'dist/lib/index.js', 'dist/lib/index.d.ts', 'docs/library.md']));
    // No source and no source map: the declarations (.d.ts) are the library's types.
    expect(tarballFiles.filter((f) => /\.map$|(?<!\.d)\.ts$/.test(f) || f.startsWith('dist/hostctl-'))).toEqual([]);
    for (const file of Object.values(SCRIPT_FILES)) expect(tarballFiles).toContain(`completions/${file}`);
    for (const page of declaredManPages()) expect(tarballFiles).toContain(page);
  });

  it('carries no path of the machine that built it', () => {
    expect(filesContaining(unpacked, ROOT)).toEqual([]);
  });
});

describe('npm install -g <tarball> into an empty prefix', () => {
  it('installs only the run-time dependencies (the keychain addon), not what dist/ bundles', () => {
    expect(Object.keys(pkg.dependencies ?? {})).toEqual(['@napi-rs/keyring']);
    const modules = join(installedDir, 'node_modules');
    const names = readdirSync(modules).flatMap((d) => (d.startsWith('@') ? readdirSync(join(modules, d)).map((s) => `${d}/${s}`) : d.startsWith('.') ? [] : [d]));
    expect(names.sort()).toEqual(expect.arrayContaining(['@napi-rs/keyring']));
    expect(names.every((n) => n.startsWith('@napi-rs/keyring'))).toBe(true);
  });

  it('puts the completion scripts and every declared man page in place', () => {
    for (const file of Object.values(SCRIPT_FILES)) {
      expect(readFileSync(join(installedDir, 'completions', file), 'utf8')).toBe(readFileSync(join(ROOT, 'completions', file), 'utf8'));
    }
    const pages = declaredManPages();
    // Every page npm run build made (man/*.1) is declared, hostctl.1 among them: a missing
    // list would install no man page at all.
    const built = readdirSync(join(ROOT, 'man')).filter((f) => /\.\d$/.test(f)).map((f) => `man/${f}`);
    expect(built).toContain('man/hostctl.1');
    expect([...pages].sort()).toEqual(built.sort());
    for (const page of pages) {
      expect(readFileSync(join(installedDir, page))).toEqual(readFileSync(join(ROOT, page)));
      expect(existsSync(manLink(prefix, page)), `${manLink(prefix, page)} (npm links declared man pages there)`).toBe(true);
    }
  });
});

/** A strict TypeScript program using the library as a bot would; it prints what it learnt as JSON. */
const CONSUMER = `import { createClient, HostctlError, type ApiObject, type ClientOptions, type ResourceName } from 'hostctl';

// The base URL and the token come from HOSTCTL_BASE_URL and HOSTCTL_TOKEN, as the CLI's.
const options: ClientOptions = { maxWait: 60, onWarning: (message: string) => console.error(message) };
const client = await createClient(options);
try {
  const resource: ResourceName = 'apps';
  const ids: string[] = [];
  for await (const app of client.list(resource, { limit: 3 })) ids.push(String(app.publicId));
  const { items, notFound }: { items: ApiObject[]; notFound: string[] } = await client.getMany('apps', [...ids, 'ap-consumer404']);
  let code: string | undefined;
  let exit: number | undefined;
  let missing: string[] | undefined;
  try {
    await client.get('apps', 'ap-consumer404');
  } catch (err) {
    if (!(err instanceof HostctlError)) throw err;
    if (err.code === 'not_found') missing = err.ids;
    code = err.code;
    exit = err.exit;
  }
  const rate = await client.rateLimit();
  const remaining: number | null = rate.remaining;
  console.log(JSON.stringify({ listed: ids.length, found: items.map((o) => o.publicId), notFound, code, exit, missing, knowsRate: remaining !== null }));
} finally {
  await client.close();
}
`;

/** The same library used wrongly: each line must fail to compile. */
const MISTAKES = `import { createClient, HostctlError } from 'hostctl';

const client = await createClient({ cache: '1m', maxWait: 30 });
for await (const app of client.list('app')) console.log(app);
for await (const team of client.list('teams', { app: 'ap-1' })) console.log(team);
await client.wait('apps', ['ap-1'], { deadline: '1m' });
await createClient({ tokens: 'x' });
const isCode = (err: HostctlError): boolean => err.code === 'notfound';
console.log(isCode);
`;

describe('a consumer project outside the repository, with the tarball installed', () => {
  let consumer: string;
  let checked: { status: number | null; stdout: string };

  beforeAll(() => {
    consumer = join(scratch.path, 'consumer');
    mkdirSync(consumer);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'hostctl-consumer', private: true, type: 'module' }));
    npm(['install', tarball, '--prefer-offline', '--no-audit', '--no-fund'], consumer);
    writeFileSync(join(consumer, 'main.ts'), CONSUMER);
    writeFileSync(join(consumer, 'mistakes.ts'), MISTAKES);
    // The repository's own tsc, once for both programs, strict, no output. No @types: the
    // package's declarations need nothing but the standard library's (es2022, and dom for
    // console and AbortSignal), and name no module the package does not ship.
    checked = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '--strict', '--noEmit', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--lib', 'es2022,dom', 'main.ts', 'mistakes.ts'],
      { cwd: consumer, encoding: 'utf8' },
    );
  }, 240_000);

  /** The lines of `file` tsc refused. */
  const refused = (file: string) => [...new Set([...checked.stdout.matchAll(new RegExp(`^${file.replace('.', '\\.')}\\((\\d+),\\d+\\): error`, 'gm'))].map((m) => Number(m[1])))];

  it('type-checks a strict TypeScript program against the declarations the package ships', () => {
    expect(checked.stdout).not.toMatch(/^(?!mistakes\.ts\()\S.*error TS/m);
    expect(refused('main.ts')).toEqual([]);
  });

  it('refuses to compile a wrong resource name, a filter the resource does not take, a missing condition, an unknown option and an error code that does not exist', () => {
    expect(checked.status).not.toBe(0);
    expect(refused('mistakes.ts')).toEqual([4, 5, 6, 7, 8]);
  });

  it.each([
    ['the sandbox', async () => startSandboxHere({ rateLimit: 100000 })],
    ['the alt server', async () => startAlt({ limit: 100000 })],
  ])('runs against %s', async (_name, start) => {
    const server = await start();
    try {
      const js = ts.transpileModule(CONSUMER, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
      writeFileSync(join(consumer, 'main.mjs'), js);
      const config = tmpDir('hostctl-consumer-config-');
      try {
        const r = await runProcess(process.execPath, ['main.mjs'], { cwd: consumer, env: { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token, HOSTCTL_CONFIG_DIR: config.path }, timeoutMs: 60_000 });
        expect([r.code, r.stderr]).toEqual([0, '']);
        const out = JSON.parse(r.stdout) as { listed: number; found: string[]; notFound: string[]; code: string; exit: number; missing: string[]; knowsRate: boolean };
        expect(out.listed).toBe(3);
        expect(out.found).toHaveLength(3);
        expect(out).toMatchObject({ notFound: ['ap-consumer404'], code: 'not_found', exit: 3, missing: ['ap-consumer404'], knowsRate: true });
      } finally {
        config.cleanup();
      }
    } finally {
      await server.stop();
    }
  });
});

smokeLayer('npm install -g', () => ({ command: [join(prefix, 'bin', 'hostctl')], env: {} }));

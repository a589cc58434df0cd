// Shell completion end to end: the shipped scripts in the real bash, zsh and fish, which
// modules a completion loads, and — against `hostctl sandbox` — that completing sends no
// request. The `__complete` engine itself runs in-process: test/cli/completion.test.ts.

import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BIN, ROOT, runCli, runProcess, startSandbox, tmpDir, type Sandbox } from '../support/cli.js';
import { completionHome, PROD_APPS, SCRIPTS, values, type CompletionHome } from '../support/completion-fixture.js';

let home: CompletionHome;
const shellEnv = (extra: Record<string, string | undefined> = {}) => home.shellEnv(extra);
/** A Tab press through the built CLI, as the shells' scripts make it. */
const engine = (words: string[], env: Record<string, string | undefined> = {}) => runCli(['__complete', ...words], { env: shellEnv(env) });

beforeAll(() => {
  home = completionHome();
});
afterAll(() => home.cleanup());

// --- the real shells --------------------------------------------------------------

/** The words bash puts in COMP_WORDS for a line: split on blanks, "=" a word of its own. */
function bashWords(line: string): string[] {
  const out: string[] = [];
  for (const word of line.split(' ')) {
    const parts = word.split(/(=)/).filter((p) => p !== '');
    out.push(...(parts.length > 0 ? parts : ['']));
  }
  return out;
}

async function bashComplete(line: string, env: Record<string, string | undefined> = {}): Promise<string[]> {
  const script = [
    'source "$1"; shift',
    'COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))',
    'COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}',
    '_hostctl_complete',
    'complete -p hostctl >&2',
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  const r = await runProcess('bash', ['--norc', '--noprofile', '-c', script, 'bash', join(SCRIPTS, 'hostctl.bash'), ...bashWords(line)], {
    env: shellEnv(env),
  });
  expect(r.stderr).toBe('complete -F _hostctl_complete hostctl\n');
  expect(r.code).toBe(0);
  return r.stdout.split('\n').filter((l) => l !== '');
}

async function fishComplete(line: string, how: 'file' | 'pipe', env: Record<string, string | undefined> = {}): Promise<string[]> {
  const load = how === 'file' ? 'source $argv[1]' : 'hostctl completion fish | source';
  const r = await runProcess('fish', ['--no-config', '-c', `${load}; complete -C $argv[2]`, join(SCRIPTS, 'hostctl.fish'), line], {
    env: shellEnv(env),
  });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split('\t')[0] ?? '');
}

// zsh completes only inside its line editor, so an outer zsh drives an interactive one
// through zpty: compinit, the shipped _hostctl (from $fpath, or sourced as a user would
// from `hostctl completion zsh`), then a Tab. A compadd wrapper prints every match zsh
// accepted, between two markers printed by the completion system's own hooks. The text
// is a JS template, so it avoids the dollar-brace form of zsh expansions.
const ZSH_DRIVER = String.raw`
zmodload zsh/zpty || exit 3
mode=$1 dir=$2 input=$3 dump=$4
zpty z zsh -f -i
zpty -w z "PROMPT='' RPROMPT='' PS2=''"
case $mode in
  fpath) zpty -w z "fpath=($dir:q \$fpath); autoload -Uz compinit; compinit -u -d $dump:q" ;;
  source) zpty -w z "autoload -Uz compinit; compinit -u -d $dump:q; source <(hostctl completion zsh)" ;;
  bare) zpty -w z 'source <(hostctl completion zsh)' ;;
esac
zpty -w z 'zstyle ":completion:*" list-grouped false; zstyle ":completion:*" insert-tab false; bindkey "^I" complete-word'
zpty -w z '__mark() { print -r -- "<<""MARK>>" }; compprefuncs=(__mark); comppostfuncs=(__mark exit)'
zpty -w z 'compadd() { if [[ $argv[1,(i)(-|--)] == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi; local -a __h; builtin compadd -A __h "$@"; local m; for m in $__h; do print -r -- "<<""C>>$m"; done; builtin compadd "$@" }'
zpty -w z "$input"$'\t'
out=''
while zpty -r z line; do out+=$line; [[ $out == *'<<MARK>>'*'<<MARK>>'* ]] && break; done
zpty -d z
print -r -- "$out" | tr -d '\r' | grep -a '^<<C>>' | sed 's/^<<C>>//'
`;

async function zshComplete(line: string, mode: 'fpath' | 'source' | 'bare', env: Record<string, string | undefined> = {}): Promise<string[]> {
  const driver = join(home.path, 'zsh-driver.zsh');
  writeFileSync(driver, ZSH_DRIVER);
  // compinit's dump, one per mode, made by the first test of the mode and read by the
  // rest: it saves each Tab the scan of every completion function on $fpath (seconds).
  const dump = join(home.path, `zcompdump-${mode}`);
  const r = await runProcess('zsh', ['-f', driver, mode, SCRIPTS, line, dump], { env: shellEnv(env), timeoutMs: 30_000 });
  expect(r.code).toBe(0);
  return [...new Set(r.stdout.split('\n').filter((l) => l !== ''))];
}

/**
 * The shells that cannot run here, with the reason. As with the keychain tests: a shell
 * that is not installed skips its tests with the reason printed, except in CI (.ci/run
 * installs all three), where a missing shell is a failure.
 */
const mustRun = process.env.CI === 'true';
const absent = new Map<string, string>();
for (const shell of ['bash', 'zsh', 'fish']) {
  const r = spawnSync(shell, ['-c', 'exit 0'], { stdio: 'ignore', timeout: 10_000 });
  if (r.error || r.status !== 0) absent.set(shell, r.error ? `${shell}: ${(r.error as NodeJS.ErrnoException).code ?? r.error.message}` : `${shell} exited ${r.status}`);
}
if (absent.size > 0 && !mustRun) {
  console.warn(`completion tests skipped for ${[...absent.keys()].join(', ')} (${[...absent.values()].join('; ')}): install them to run these; CI fails instead of skipping.`);
}

describe('the shells the completion tests drive', () => {
  it.runIf(mustRun)('are all installed in CI', () => {
    expect([...absent.values()]).toEqual([]);
  });
});

type Shell = [string, (line: string, env?: Record<string, string | undefined>) => Promise<string[]>];
const SHELLS: Shell[] = (
  [
    ['bash', (l, e) => bashComplete(l, e)],
    ['zsh (installed on $fpath)', (l, e) => zshComplete(l, 'fpath', e)],
    ['zsh (source <(hostctl completion zsh))', (l, e) => zshComplete(l, 'source', e)],
    ['zsh (sourced with no compinit before it)', (l, e) => zshComplete(l, 'bare', e)],
    ['fish (source file)', (l, e) => fishComplete(l, 'file', e)],
    ['fish (hostctl completion fish | source)', (l, e) => fishComplete(l, 'pipe', e)],
  ] satisfies Shell[]
).filter(([name]) => mustRun || !absent.has(name.split(' ')[0] ?? name));
const SKIPPED = mustRun ? [] : [...absent.keys()];

const sorted = (list: string[]) => [...list].sort();

describe.runIf(mustRun || !absent.has('fish'))('names beside IDs in fish', () => {
  it('shows the name seen for each ID as its description', async () => {
    const r = await runProcess('fish', ['--no-config', '-c', 'source $argv[1]; complete -C $argv[2]', join(SCRIPTS, 'hostctl.fish'), 'hostctl apps get ap-7f3k-'], { env: shellEnv() });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(['ap-7f3k-b001', 'ap-7f3k-x2q9\tweb']);
  });
});

describe.each(SKIPPED)('completion in %s', () => {
  it.skip('is skipped: the shell is not installed here', () => undefined);
});

describe.each(SHELLS)('completion in %s', (name, complete) => {
  it('completes a partial command', async () => {
    expect(sorted(await complete('hostctl ap'))).toEqual(['api', 'app', 'apps']);
  });

  it("lists a resource's verbs", async () => {
    expect(sorted(await complete('hostctl apps '))).toEqual(['get', 'list', 'ls', 'view', 'wait']);
  });

  it('completes a flag name', async () => {
    expect(await complete('hostctl apps list --l')).toEqual(['--limit']);
  });

  it('completes -o values, and --output= values', async () => {
    expect(sorted(await complete('hostctl apps list -o '))).toEqual(['json', 'ndjson', 'table', 'tsv']);
    const eq = sorted(await complete('hostctl apps list --output=t'));
    // bash replaces only the text after "=", so its candidates are the values alone.
    expect(eq).toEqual(name === 'bash' ? ['table', 'tsv'] : ['--output=table', '--output=tsv']);
  });

  it('completes app IDs seen before, dashes and all', async () => {
    expect(sorted(await complete('hostctl apps get '))).toEqual(sorted(PROD_APPS));
    expect(sorted(await complete('hostctl apps wait '))).toEqual(sorted(PROD_APPS));
    expect(sorted(await complete('hostctl apps get ap-7f3k-'))).toEqual(['ap-7f3k-b001', 'ap-7f3k-x2q9']);
    expect(await complete('hostctl --profile staging apps get ', { HOSTCTL_BASE_URL: undefined }), 'profile given on the line').toEqual(['ap-staging-1']);
  });
});

// --- import graph -----------------------------------------------------------------

/**
 * A string each forbidden module carries in its own code, which survives bundling and
 * minification (a string literal or a property name). The test first checks that the
 * package really contains it, so a missing match below means something.
 */
const FORBIDDEN: Array<{ pkg: string; marker: string }> = [
  { pkg: 'undici', marker: 'UND_ERR_CONNECT_TIMEOUT' },
  { pkg: 'ora', marker: 'There is no built-in spinner named' },
  { pkg: 'conf', marker: "as it's used to manage this module internal operations" },
  { pkg: '@napi-rs/keyring', marker: '@napi-rs/keyring' },
];

function packageContains(dir: string, marker: string): boolean {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (entry === 'node_modules') continue;
    const st = statSync(path);
    if (st.isDirectory()) {
      if (packageContains(path, marker)) return true;
    } else if (/\.(c|m)?js$|package\.json$/.test(entry) && readFileSync(path, 'utf8').includes(marker)) {
      return true;
    }
  }
  return false;
}

/**
 * A preload that writes, at exit, every file loaded as CommonJS: those in require.cache
 * and those compiled through vm.Script (bin/hostctl.js loads its bundles so, with their
 * code cache); and every built-in Node loaded (process.moduleLoadList, which names them
 * "NativeModule net" and so on).
 */
function preloadScript(log: string): string {
  return [
    "'use strict';",
    "const { writeFileSync } = require('node:fs');",
    "const vm = require('node:vm');",
    'const scripts = [];',
    'vm.Script = class extends vm.Script {',
    '  constructor(code, options) {',
    '    super(code, options);',
    "    if (typeof options?.filename === 'string') scripts.push(options.filename);",
    '  }',
    '};',
    "process.on('exit', () => {",
    `  writeFileSync(${JSON.stringify(log)}, JSON.stringify({ files: [...Object.keys(require.cache), ...scripts], builtins: process.moduleLoadList }));`,
    '});',
    '',
  ].join('\n');
}

interface Loaded {
  files: string[];
  builtins: string[];
}

function readLoaded(log: string): Loaded {
  const raw: unknown = JSON.parse(readFileSync(log, 'utf8'));
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  return typeof raw === 'object' && raw !== null && 'files' in raw && 'builtins' in raw
    ? { files: strings(raw.files), builtins: strings(raw.builtins) }
    : { files: [], builtins: [] };
}

const NETWORK_BUILTINS = /^NativeModule (http|https|net|tls|dns|http2)$/;
/** A string literal of src/commands/complete.ts, which survives bundling and minification. */
const COMPLETION_MARKER = 'the profile used without --profile';

describe('__complete loads only what it needs', () => {
  it('loads none of undici, ora, conf or the keychain module, and no network built-in', async () => {
    const dir = tmpDir();
    try {
      // Run 1, as a Tab press runs: the CommonJS files and the built-ins it loads.
      const preload = join(dir.path, 'preload.cjs');
      const cjsLog = join(dir.path, 'cjs.json');
      writeFileSync(preload, preloadScript(cjsLog));
      const plain = await runProcess(process.execPath, ['--require', preload, BIN, '__complete', 'apps', 'get', ''], { env: shellEnv() });
      expect(values(plain)).toEqual(PROD_APPS);
      const cjs = readLoaded(cjsLog);

      // Run 2, under an ES module loader hook: any ES module the completion imports. (The
      // hook's own machinery loads node:net, so the built-ins are judged by run 1 alone.)
      const esmLog = join(dir.path, 'esm.txt');
      writeFileSync(esmLog, '');
      writeFileSync(
        join(dir.path, 'hooks.mjs'),
        `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n  appendFileSync(${JSON.stringify(esmLog)}, url + '\\n');\n  return next(url, context);\n}\n`,
      );
      writeFileSync(join(dir.path, 'register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir.path, 'hooks.mjs')).href)});\n`);
      const hooked = await runProcess(process.execPath, ['--import', join(dir.path, 'register.mjs'), BIN, '__complete', 'apps', 'get', ''], { env: shellEnv() });
      expect(values(hooked)).toEqual(PROD_APPS);
      const esm = readFileSync(esmLog, 'utf8').split('\n').filter(Boolean);

      // The observers saw the run: the entry in both, and the usual built-ins in run 1.
      expect(cjs.files).toContain(BIN);
      expect(esm).toContain(pathToFileURL(BIN).href);
      expect(cjs.builtins).toContain('NativeModule fs');

      const files = [...new Set([...cjs.files, ...esm.filter((u) => u.startsWith('file:')).map((u) => new URL(u).pathname)])].filter((f) => f !== preload);
      const code = files.map((f) => readFileSync(f, 'utf8'));
      expect(readFileSync(join(ROOT, 'src', 'commands', 'complete.ts'), 'utf8')).toContain(COMPLETION_MARKER);
      expect(
        files.filter((_f, i) => code[i]?.includes(COMPLETION_MARKER)),
        'a file holding the completion engine was loaded',
      ).not.toEqual([]);
      expect(files.filter((f) => f.includes('/node_modules/'))).toEqual([]);
      expect(cjs.builtins.filter((m) => NETWORK_BUILTINS.test(m))).toEqual([]);
      expect(esm.filter((u) => /^node:(http|https|net|tls|dns|http2)$/.test(u))).toEqual([]);

      const all = code.join('\n');
      for (const { pkg, marker } of FORBIDDEN) {
        expect(packageContains(join(ROOT, 'node_modules', pkg), marker), `${pkg} contains its marker`).toBe(true);
        expect(all.includes(marker), `${pkg} is loaded by __complete`).toBe(false);
      }
      // The scan can see a bundled dependency: ora is bundled into dist/ and found there.
      const dist = readdirSync(join(ROOT, 'dist', 'chunks')).map((f) => readFileSync(join(ROOT, 'dist', 'chunks', f), 'utf8'));
      expect(dist.some((text) => text.includes('There is no built-in spinner named'))).toBe(true);
      // And the preload sees a network built-in when one is loaded.
      const netLog = join(dir.path, 'net.json');
      writeFileSync(preload, preloadScript(netLog));
      const net = await runProcess(process.execPath, ['--require', preload, '-e', "require('node:net')"]);
      expect(net.code).toBe(0);
      expect(readLoaded(netLog).builtins.filter((m) => NETWORK_BUILTINS.test(m))).toEqual(['NativeModule net']);
    } finally {
      dir.cleanup();
    }
  });
});

// --- against the sandbox ----------------------------------------------------------

describe('completion against hostctl sandbox', () => {
  let sandbox: Sandbox;
  let sandboxConfig: { path: string; cleanup(): void };
  let listed: string[];

  const sandboxEnv = () => ({ HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token, HOSTCTL_CONFIG_DIR: sandboxConfig.path });
  const requestCount = async (): Promise<number> => {
    const res = await fetch(`${sandbox.origin}/_sandbox/requests`);
    const body: unknown = await res.json();
    if (!Array.isArray(body)) throw new Error('GET /_sandbox/requests did not return an array');
    return body.length;
  };

  beforeAll(async () => {
    sandbox = await startSandbox(['--rate-limit', '100000']);
    sandboxConfig = tmpDir();
    const r = await runCli(['apps', 'list', '--limit', '5', '--json'], { env: shellEnv(sandboxEnv()) });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim(), 'hostctl apps list --json printed the apps that seed the ID cache').not.toBe('');
    const apps: unknown = JSON.parse(r.stdout);
    if (!Array.isArray(apps)) throw new Error('apps list --json did not print an array');
    listed = apps.map((a: unknown) => (typeof a === 'object' && a !== null && 'publicId' in a ? String(a.publicId) : ''));
    expect(listed.length).toBeGreaterThan(0);
  });

  afterAll(async () => {
    await sandbox?.stop();
    sandboxConfig?.cleanup();
  });

  it('offers the app IDs listed before in every shell, and the sandbox sees no request', async () => {
    const before = await requestCount();
    expect(before).toBeGreaterThan(0);
    for (const [name, complete] of SHELLS) {
      const got = await complete('hostctl apps get ', sandboxEnv());
      expect(sorted(got), name).toEqual(expect.arrayContaining(listed));
    }
    expect(values(await engine(['apps', 'get', ''], sandboxEnv()))).toEqual(expect.arrayContaining(listed));
    expect(await requestCount()).toBe(before);
  });
});

// Shell completion end to end: the shipped scripts in the real bash, zsh and fish, which
// modules a completion loads, and — against `hostctl sandbox` — that completing sends no
// request. The `__complete` engine itself runs in-process: test/cli/completion.test.ts.

import { spawnSync } from 'node:child_process';
import { describe, expect } from 'vitest';
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BIN, ROOT, runCli, runProcess, tmpDir } from '../support/cli.js';
import { e2eTest } from '../support/fixtures.js';
import { completionHome, PROD_APPS, SCRIPTS, values, type CompletionHome } from '../support/completion-fixture.js';
import { underCI } from '../support/ci.js';


// --- the real shells --------------------------------------------------------------
//
// Each shell (and each way of loading its script) runs once and completes every line of
// the tests below in turn: a Tab costs a `hostctl __complete` process, a shell and its
// completion system are started once. Before each line the shell sets that line's
// environment; the output of each line comes between markers, so each test reads its own.

/** A line to complete, and the environment it differs in from shellEnv() (undefined: unset). */
interface Line {
  line: string;
  env?: () => Record<string, string | undefined>;
}

/**
 * What a shell did for one line: the candidates it offered (fish: with their
 * descriptions), and where the shell can tell them apart, the line's stderr and status
 * (zsh completes in a terminal, where both go to the screen).
 */
interface Completed {
  raw: string[];
  stderr?: string;
  status?: number;
}

type Batch = (lines: Line[], home: CompletionHome) => Promise<Completed[]>;

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const fishQuote = (s: string) => `'${s.replace(/[\\']/g, (c) => `\\${c}`)}'`;

/**
 * The commands that give a line its environment, and put back the rest: every variable
 * some line changes is set (or unset) before every line.
 */
function envSetup(home: CompletionHome, lines: Line[], i: number, set: (k: string, v: string) => string, unset: (k: string) => string): string[] {
  const base = home.shellEnv();
  const envs = lines.map((l) => l.env?.() ?? {});
  const keys = [...new Set(envs.flatMap((e) => Object.keys(e)))].sort();
  const mine = envs[i] ?? {};
  return keys.map((k) => {
    const v = k in mine ? mine[k] : base[k];
    return v === undefined ? unset(k) : set(k, v);
  });
}

const LINE_MARK = '<<LINE>>';

/** Splits a batch's output at the marker printed before each line. */
function perLine(text: string, count: number): string[] {
  const parts = text.split(`${LINE_MARK}\n`).slice(1);
  expect(parts, `one section of output per line, in:\n${text}`).toHaveLength(count);
  return parts;
}

/**
 * A shell run that completed `count` lines, split per line: what it offered, its stderr,
 * and the status printed last as `<<RC n>>`. The run itself must have exited 0.
 */
function perLineResults(r: { code: number; stdout: string; stderr: string }, count: number) {
  expect(r.code, r.stderr).toBe(0);
  const errs = perLine(r.stderr, count);
  return perLine(r.stdout, count).map((out, i) => {
    const all = out.split('\n').filter((l) => l !== '');
    const status = Number(/^<<RC (\d+)>>$/.exec(all.pop() ?? '')?.[1] ?? -1);
    return { raw: all, stderr: errs[i] ?? '', status };
  });
}

/** The words bash puts in COMP_WORDS for a line: split on blanks, "=" a word of its own. */
function bashWords(line: string): string[] {
  const out: string[] = [];
  for (const word of line.split(' ')) {
    const parts = word.split(/(=)/).filter((p) => p !== '');
    out.push(...(parts.length > 0 ? parts : ['']));
  }
  return out;
}

/** One bash, the script sourced once, `_hostctl_complete` called as readline calls it for each line. */
const bashBatch: Batch = async (lines, home) => {
  const script = [
    'source "$1"',
    ...lines.map((l, i) =>
      [
        `printf '${LINE_MARK}\\n'; printf '${LINE_MARK}\\n' >&2`,
        '(',
        ...envSetup(home, lines, i, (k, v) => `export ${k}=${quote(v)}`, (k) => `unset ${k}`),
        `COMP_WORDS=(${bashWords(l.line).map(quote).join(' ')}); COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))`,
        'COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}',
        '_hostctl_complete; rc=$?',
        'complete -p hostctl >&2',
        'printf "%s\\n" "${COMPREPLY[@]}"',
        'printf "<<RC %s>>\\n" "$rc"',
        ')',
      ].join('\n'),
    ),
  ].join('\n');
  const r = await runProcess('bash', ['--norc', '--noprofile', '-c', script, 'bash', join(SCRIPTS, 'hostctl.bash')], { env: home.shellEnv(), timeoutMs: 180_000 });
  return perLineResults(r, lines.length);
};

/** One fish, the script loaded once (from the file, or `hostctl completion fish | source`), `complete -C` for each line. */
function fishBatch(how: 'file' | 'pipe'): Batch {
  return async (lines, home) => {
    const script = [
      how === 'file' ? 'source $argv[1]' : 'hostctl completion fish | source',
      ...lines.map((l, i) =>
        [
          `echo '${LINE_MARK}'; echo '${LINE_MARK}' >&2`,
          ...envSetup(home, lines, i, (k, v) => `set -gx ${k} ${fishQuote(v)}`, (k) => `set -e ${k}`),
          `complete -C ${fishQuote(l.line)}`,
          'echo "<<RC $status>>"',
        ].join('\n'),
      ),
    ].join('\n');
    const r = await runProcess('fish', ['--no-config', '-c', script, join(SCRIPTS, 'hostctl.fish')], { env: home.shellEnv(), timeoutMs: 180_000 });
    return perLineResults(r, lines.length);
  };
}

// zsh completes only inside its line editor, so an outer zsh drives an interactive one
// through zpty: compinit, the shipped _hostctl (from $fpath, or sourced as a user would
// from `hostctl completion zsh`), then for each line: its environment, the line, a Tab,
// and Ctrl-U to clear it. The Tab key runs a widget that arms the completion system's
// one-shot hooks to print a marker before and after, around every match zsh accepted
// (printed by a compadd wrapper). The text is a JS template, so it avoids the dollar-brace
// form of zsh expansions.
const ZSH_DRIVER = String.raw`
zmodload zsh/zpty || exit 3
mode=$1 dir=$2 dump=$3
shift 3
zpty z zsh -f -i
zpty -w z "PROMPT='' RPROMPT='' PS2=''"
case $mode in
  fpath) zpty -w z "fpath=($dir:q \$fpath); autoload -Uz compinit; compinit -u -d $dump:q" ;;
  source) zpty -w z "autoload -Uz compinit; compinit -u -d $dump:q; source <(hostctl completion zsh)" ;;
  bare) zpty -w z 'source <(hostctl completion zsh)' ;;
esac
zpty -w z 'zstyle ":completion:*" list-grouped false; zstyle ":completion:*" insert-tab false'
zpty -w z '__mark() { print -r -- "<<""MARK>>" }; __tab() { compprefuncs=(__mark); comppostfuncs=(__mark); zle complete-word }; zle -N __tab; bindkey "^I" __tab'
zpty -w z 'compadd() { if [[ $argv[1,(i)(-|--)] == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi; local -a __h; builtin compadd -A __h "$@"; local m; for m in $__h; do print -r -- "<<""C>>$m"; done; builtin compadd "$@" }'
while (( $# )); do
  setup=$1 input=$2
  shift 2
  zpty -w z "$setup; print -r -- '<<''READY>>'"
  out=''
  while zpty -r z line; do out+=$line; [[ $out == *'<<READY>>'* ]] && break; done
  zpty -w -n z "$input"$'\t'
  out=''
  while zpty -r z line; do out+=$line; [[ $out == *'<<MARK>>'*'<<MARK>>'* ]] && break; done
  zpty -w -n z $'\C-u'
  print -r -- '<<LINE>>'
  print -r -- "$out" | while IFS= read -r m; do
    [[ $m == *$'\r' ]] && m=$m[1,-2]
    [[ $m == '<<C>>'* ]] && print -r -- "$m[6,-1]"
  done
done
zpty -d z
`;

function zshBatch(mode: 'fpath' | 'source' | 'bare'): Batch {
  return async (lines, home) => {
    // One file per mode: the modes run at the same time, and a zsh must never read a
    // driver that another batch is rewriting.
    const driver = join(home.path, `zsh-driver-${mode}.zsh`);
    writeFileSync(driver, ZSH_DRIVER);
    const dump = join(home.path, `zcompdump-${mode}`);
    const args = lines.flatMap((l, i) => [['true', ...envSetup(home, lines, i, (k, v) => `export ${k}=${quote(v)}`, (k) => `unset ${k}`)].join('; '), l.line]);
    const r = await runProcess('zsh', ['-f', driver, mode, SCRIPTS, dump, ...args], { env: home.shellEnv(), timeoutMs: 180_000 });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    return perLine(r.stdout, lines.length).map((out) => ({ raw: [...new Set(out.split('\n').filter((l) => l !== ''))] }));
  };
}

/**
 * The shells that cannot run here, with the reason. As with the keychain tests: a shell
 * that is not installed skips its tests with the reason printed, except in CI (.ci/run
 * installs all three), where a missing shell is a failure.
 */
const mustRun = underCI();
const absent = new Map<string, string>();
for (const shell of ['bash', 'zsh', 'fish']) {
  const r = spawnSync(shell, ['-c', 'exit 0'], { stdio: 'ignore', timeout: 10_000 });
  if (r.error || r.status !== 0) absent.set(shell, r.error ? `${shell}: ${(r.error as NodeJS.ErrnoException).code ?? r.error.message}` : `${shell} exited ${r.status}`);
}
if (absent.size > 0 && !mustRun) {
  console.warn(`completion tests skipped for ${[...absent.keys()].join(', ')} (${[...absent.values()].join('; ')}): install them to run these; CI fails instead of skipping.`);
}

/** Each shell's answers, line by line in the order of `batch`; a shell that failed, its error. */
interface Shells {
  batch: Line[];
  /** The line completed against the sandbox, the first of the batch. */
  sandboxLine: Line;
  answers: Map<string, PromiseSettledResult<Completed[]>>;
  /** The app IDs `apps list` printed from the sandbox before the shells ran. */
  listed: string[];
  /** The sandbox's request count before and after the shells completed every line. */
  requestsBefore: number;
  requestsAfter: number;
  sandboxEnv: Record<string, string>;
}

const requestCount = async (sandbox: { origin: string }): Promise<number> => {
  const res = await fetch(`${sandbox.origin}/_sandbox/requests`);
  const body: unknown = await res.json();
  if (!Array.isArray(body)) throw new Error('GET /_sandbox/requests did not return an array');
  return body.length;
};

// The completion home and the shells' answers are the file's: each shell starts once and
// completes every line, and each test reads its own line's answer.
const test = e2eTest({ sandbox: ['--rate-limit', '100000'] })
  // eslint-disable-next-line no-empty-pattern -- vitest reads what a fixture needs from its first parameter, an object pattern: `{}` is "nothing".
  .extend('completion', { scope: 'file' }, ({}, { onCleanup }): CompletionHome => {
    const home = completionHome();
    onCleanup(() => home.cleanup());
    return home;
  })
  .extend('shells', { scope: 'file' }, async ({ sandbox, completion }, { onCleanup }): Promise<Shells> => {
    const config = tmpDir();
    onCleanup(() => config.cleanup());
    const sandboxEnv = { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token, HOSTCTL_CONFIG_DIR: config.path };
    const r = await runCli(['apps', 'list', '--limit', '5', '--json'], { env: completion.shellEnv(sandboxEnv) });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim(), 'hostctl apps list --json printed the apps that seed the ID cache').not.toBe('');
    const apps: unknown = JSON.parse(r.stdout);
    if (!Array.isArray(apps)) throw new Error('apps list --json did not print an array');
    const listed = apps.map((a: unknown) => (typeof a === 'object' && a !== null && 'publicId' in a ? String(a.publicId) : ''));
    expect(listed.length).toBeGreaterThan(0);

    const sandboxLine: Line = { line: 'hostctl apps get ', env: () => sandboxEnv };
    const batch = [sandboxLine, ...CASES.map((c) => c.line)];
    const requestsBefore = await requestCount(sandbox);
    const settled = await Promise.allSettled(SHELLS.map(([, run]) => run(batch, completion)));
    const answers = new Map(SHELLS.map(([name], i) => [name, settled[i] as PromiseSettledResult<Completed[]>]));
    return { batch, sandboxLine, answers, listed, requestsBefore, requestsAfter: await requestCount(sandbox), sandboxEnv };
  });

/** What `shell` answered for `line`; its error if the shell failed. */
function answer(shells: Shells, shell: string, line: Line): Completed {
  const settled = shells.answers.get(shell);
  if (settled === undefined) throw new Error(`${shell} did not run`);
  if (settled.status === 'rejected') throw settled.reason;
  const got = settled.value[shells.batch.indexOf(line)];
  if (got === undefined) throw new Error(`${shell} gave no answer for "${line.line}"`);
  if (got.stderr !== undefined) expect(got.stderr, `stderr of ${shell} completing "${line.line}"`).toBe(shell === 'bash' ? 'complete -F _hostctl_complete hostctl\n' : '');
  if (got.status !== undefined) expect(got.status, `status of the completion of "${line.line}"`).toBe(0);
  return got;
}

describe('the shells the completion tests drive', () => {
  test.runIf(mustRun)('are all installed in CI', () => {
    expect([...absent.values()]).toEqual([]);
  });
});

const SHELLS: Array<[string, Batch]> = (
  [
    ['bash', bashBatch],
    ['zsh (installed on $fpath)', zshBatch('fpath')],
    ['zsh (source <(hostctl completion zsh))', zshBatch('source')],
    ['zsh (sourced with no compinit before it)', zshBatch('bare')],
    ['fish (source file)', fishBatch('file')],
    ['fish (hostctl completion fish | source)', fishBatch('pipe')],
  ] satisfies Array<[string, Batch]>
).filter(([name]) => mustRun || !absent.has(name.split(' ')[0] ?? name));
const SKIPPED = mustRun ? [] : [...absent.keys()];

const sorted = (list: string[]) => [...list].sort();

/** A test of one line in every shell: what it completes to, there (bash differs after "="). */
interface Case {
  title: string;
  line: Line;
  want: (shell: string) => string[];
  /** Compare as sets: the shells order candidates their own way. */
  unordered?: boolean;
}

const CASES: Case[] = [
  { title: 'completes a partial command', line: { line: 'hostctl ap' }, want: () => ['api', 'app', 'apps'], unordered: true },
  { title: "lists a resource's verbs", line: { line: 'hostctl apps ' }, want: () => ['get', 'list', 'ls', 'view', 'wait'], unordered: true },
  { title: 'completes a flag name', line: { line: 'hostctl apps list --l' }, want: () => ['--limit'] },
  // Between lines of the usual environment: each line gets its own, and the next its back.
  {
    title: 'completes app IDs of the profile given on the line',
    line: { line: 'hostctl --profile staging apps get ', env: () => ({ HOSTCTL_BASE_URL: undefined }) },
    want: () => ['ap-staging-1'],
  },
  { title: 'completes -o values', line: { line: 'hostctl apps list -o ' }, want: () => ['json', 'ndjson', 'table', 'tsv'], unordered: true },
  // bash replaces only the text after "=", so its candidates are the values alone.
  { title: 'completes --output= values', line: { line: 'hostctl apps list --output=t' }, want: (shell) => (shell === 'bash' ? ['table', 'tsv'] : ['--output=table', '--output=tsv']), unordered: true },
  { title: 'completes app IDs seen before, dashes and all (get)', line: { line: 'hostctl apps get ' }, want: () => sorted(PROD_APPS), unordered: true },
  { title: 'completes app IDs seen before, dashes and all (wait)', line: { line: 'hostctl apps wait ' }, want: () => sorted(PROD_APPS), unordered: true },
  { title: 'completes app IDs seen before, dashes and all (a prefix with a dash)', line: { line: 'hostctl apps get ap-7f3k-' }, want: () => ['ap-7f3k-b001', 'ap-7f3k-x2q9'], unordered: true },
];

/** The candidates alone (fish prints a description after a tab). */
const candidates = (c: Completed) => c.raw.map((l) => l.split('\t')[0] ?? '');

describe.runIf(mustRun || !absent.has('fish'))('names beside IDs in fish', () => {
  test('shows the name seen for each ID as its description', ({ shells }) => {
    const line = CASES.find((c) => c.line.line === 'hostctl apps get ap-7f3k-')?.line;
    if (line === undefined) throw new Error('the case of "hostctl apps get ap-7f3k-" is gone');
    for (const shell of ['fish (source file)', 'fish (hostctl completion fish | source)']) {
      expect(sorted(answer(shells, shell, line).raw), shell).toEqual(['ap-7f3k-b001', 'ap-7f3k-x2q9\tweb']);
    }
  });
});

describe.runIf(mustRun || !absent.has('bash'))('bash inserts every candidate quoted for the shell', () => {
  // Profile names come from the config, which may hold anything: readline inserts what
  // COMPREPLY holds as it is, and Enter would run it.
  const HOSTILE = ['staging;touch pwned;', "it's $(touch pwned2)", 'a b', 'x`touch pwned3`', 'plain-name_1'];

  test('each candidate, read back as the shell reads the line, is the name itself, and runs nothing', async ({ completion, newDir }) => {
    const dir = newDir('hostctl-bash-quote-');
    const config = join(dir, 'config');
    const cwd = join(dir, 'cwd');
    mkdirSync(config);
    mkdirSync(cwd);
    writeFileSync(join(config, 'config.json'), JSON.stringify({ profiles: Object.fromEntries(HOSTILE.map((n) => [n, { baseUrl: 'https://api.example.invalid/v1' }])) }));
    const script = [
      'source "$1"',
      'COMP_WORDS=(hostctl --profile ""); COMP_CWORD=2',
      '_hostctl_complete',
      // What the line holds after the candidate is inserted, read as bash reads it.
      'for c in "${COMPREPLY[@]}"; do eval "set -- $c"; printf "%s\\n" "$1"; done',
    ].join('\n');
    const r = await runProcess('bash', ['--norc', '--noprofile', '-c', script, 'bash', join(SCRIPTS, 'hostctl.bash')], { env: completion.shellEnv({ HOSTCTL_CONFIG_DIR: config }), cwd });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(sorted(r.stdout.split('\n').filter(Boolean))).toEqual(sorted(['default', ...HOSTILE]));
    expect(readdirSync(cwd)).toEqual([]);
  });
});

// zsh quotes what it inserts itself (compadd and _describe without -Q): a Tab in a real
// zsh line editor, then the word read back as zsh reads the line ((z) splits it, (Q)
// removes the quoting). The driver waits for markers, not for time; the key that shows the
// line is Ctrl-Y, which begins no other binding (after Ctrl-X, a prefix, zle waits for more).
const ZSH_INSERT_DRIVER = [
  'zmodload zsh/zpty || exit 3',
  'fpathdir=$1 dump=$2',
  'shift 2',
  'zpty z zsh -f -i',
  `zpty -w z "PROMPT='' RPROMPT='' PS2=''"`,
  'zpty -w z "fpath=($fpathdir:q \\$fpath); autoload -Uz compinit; compinit -u -d $dump:q"',
  `zpty -w z 'zstyle ":completion:*" insert-tab false; __show() { local w=(\${(z)BUFFER}); print -r -- "<<""W>>\${(Q)w[3]}<<""END>>"; BUFFER="" }; zle -N __show; bindkey "^Y" __show'`,
  'for prefix in "$@"; do',
  `  zpty -w -n z "hostctl --profile $prefix"$'\\t\\C-y'`,
  "  out=''",
  `  while zpty -r z line; do out+=$line; [[ $out == *'<<W>>'*'<<END>>'* ]] && break; done`,
  `  print -r -- "\${\${out##*<<W>>}%%<<END>>*}"`,
  'done',
  'zpty -d z',
  '',
].join('\n');

describe.runIf(mustRun || !absent.has('zsh'))('zsh inserts every candidate quoted for the shell', () => {
  const HOSTILE: Record<string, string> = { stag: 'staging;touch pwned;', it: "it's $(touch pwned2)", x: 'x`touch pwned3`', a: 'a b' };

  test('the inserted word, read back as zsh reads the line, is the name itself', async ({ completion, newDir }) => {
    const dir = newDir('hostctl-zsh-quote-');
    const config = join(dir, 'config');
    mkdirSync(config);
    writeFileSync(join(config, 'config.json'), JSON.stringify({ profiles: Object.fromEntries(Object.values(HOSTILE).map((n) => [n, { baseUrl: 'https://api.example.invalid/v1' }])) }));
    const driver = join(dir, 'driver.zsh');
    writeFileSync(driver, ZSH_INSERT_DRIVER);
    const r = await runProcess('zsh', ['-f', driver, SCRIPTS, join(dir, 'zcompdump'), ...Object.keys(HOSTILE)], { env: completion.shellEnv({ HOSTCTL_CONFIG_DIR: config }), cwd: dir, timeoutMs: 60_000 });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean)).toEqual(Object.values(HOSTILE));
    expect(readdirSync(dir).filter((f) => f.startsWith('pwned'))).toEqual([]);
  });
});

describe.each(SKIPPED)('completion in %s', () => {
  test.skip('is skipped: the shell is not installed here', () => undefined);
});

describe.each(SHELLS.map(([name]) => name))('completion in %s', (name) => {
  for (const c of CASES) {
    test(`${c.title}: "${c.line.line}"`, ({ shells }) => {
      const got = candidates(answer(shells, name, c.line));
      expect(c.unordered ? sorted(got) : got).toEqual(c.want(name));
    });
  }

  test('offers the app IDs listed before from hostctl sandbox', ({ shells }) => {
    expect(sorted(candidates(answer(shells, name, shells.sandboxLine)))).toEqual(expect.arrayContaining(shells.listed));
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
  { pkg: 'ioredis', marker: 'Connection is closed.' },
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
  test('loads none of undici, ora, conf or the keychain module, and no network built-in', async ({ completion, newDir }) => {
    const dir = newDir();
    // Run 1, as a Tab press runs: the CommonJS files and the built-ins it loads.
    const preload = join(dir, 'preload.cjs');
    const cjsLog = join(dir, 'cjs.json');
    writeFileSync(preload, preloadScript(cjsLog));
    const plain = await runProcess(process.execPath, ['--require', preload, BIN, '__complete', 'apps', 'get', ''], { env: completion.shellEnv() });
    expect(values(plain)).toEqual(PROD_APPS);
    const cjs = readLoaded(cjsLog);

    // Run 2, under an ES module loader hook: any ES module the completion imports. (The
    // hook's own machinery loads node:net, so the built-ins are judged by run 1 alone.)
    const esmLog = join(dir, 'esm.txt');
    writeFileSync(esmLog, '');
    writeFileSync(
      join(dir, 'hooks.mjs'),
      `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n  appendFileSync(${JSON.stringify(esmLog)}, url + '\\n');\n  return next(url, context);\n}\n`,
    );
    writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`);
    const hooked = await runProcess(process.execPath, ['--import', join(dir, 'register.mjs'), BIN, '__complete', 'apps', 'get', ''], { env: completion.shellEnv() });
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
    const netLog = join(dir, 'net.json');
    writeFileSync(preload, preloadScript(netLog));
    const net = await runProcess(process.execPath, ['--require', preload, '-e', "require('node:net')"]);
    expect(net.code).toBe(0);
    expect(readLoaded(netLog).builtins.filter((m) => NETWORK_BUILTINS.test(m))).toEqual(['NativeModule net']);
  });
});

// --- against the sandbox ----------------------------------------------------------

describe('completion against hostctl sandbox', () => {
  test('sees no request while every shell completes, nor from __complete itself', async ({ shells, completion, sandbox }) => {
    expect(shells.requestsBefore).toBeGreaterThan(0);
    expect([...shells.answers.values()].map((a) => a.status)).toEqual(SHELLS.map(() => 'fulfilled'));
    expect(shells.requestsAfter).toBe(shells.requestsBefore);
    // A Tab press through the built CLI, as the shells' scripts make it.
    const tab = await runCli(['__complete', 'apps', 'get', ''], { env: completion.shellEnv(shells.sandboxEnv) });
    expect(values(tab)).toEqual(expect.arrayContaining(shells.listed));
    expect(await requestCount(sandbox)).toBe(shells.requestsBefore);
  });
});

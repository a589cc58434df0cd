// The world a test builds, written once as vitest fixtures (test.extend): a test names what
// it needs in its arguments and gets it new, and each fixture takes down what it made when
// the test (or, for the sandbox, the file) ends, whether the test passed or not.
//
//   home, config  a new empty HOME and HOSTCTL_CONFIG_DIR of the test's own (state.json and
//                 the cache live in the config dir); homeEnv names both. The XDG dirs are
//                 never inherited: runCli (cli.ts isolated()) drops the developer's.
//   newDir(p)     another new empty directory of the test's own, as many as it asks for
//   hostile(b)    starts a loopback server that behaves as `b` (hostile-server.ts)
//   alt(opts)     starts the independent alt server (servers.ts startAlt)
//   sandbox       the file's sandbox (file scope), started by the first test that names it,
//                 with the flags the file gives its layer
//   sandboxEnv    HOSTCTL_BASE_URL and HOSTCTL_TOKEN of that sandbox, and the test's config dir
//   sandboxes(a)  another sandbox of the test's own (a low rate limit, say)
//   hostctl(args, env?, opts?)  runs hostctl in the test's home, with no proxy variables,
//                 at the file's sandbox if the layer was told `runOnSandbox`; a file sets
//                 its own defaults by extending `runEnv` and `runOptions`
//   pty(args, env?, opts?)  (cliTerminalTest) the same run on a terminal: one screen of
//                 stdout and stderr (inproc.ts runInPty)
//
// Two layers, one set of names: `cliTest()` (test/cli/, in-process: inproc.ts, the sandbox
// on a VirtualClock) and `e2eTest()` (test/e2e/, the built CLI as a process: cli.ts). Each
// layer's module is imported by the fixture that needs it, so an e2e file never loads the
// CLI into its worker. A file calls its layer once, at its top level (vitest refuses a
// file-scoped fixture defined inside a describe), and extends it with its own helpers:
//
//   const test = cliTest({ sandbox: ['--rate-limit', '1000'], runOnSandbox: true })
//     .extend('plant', ({ sandbox }) => (objects) => sandboxAdmin(sandbox).plant('apps', objects));
//   test('…', async ({ hostctl, plant }) => { … });

/* eslint-disable no-empty-pattern -- vitest reads what a fixture needs from its first parameter, which must be an object pattern: `{}` is "nothing". */

import { test as base } from 'vitest';
import { tmpDir, type RunOptions, type RunResult } from './cli.js';
import { NO_PROXY_ENV, startHostile, type Behaviour, type HostileServer } from './hostile-server.js';
import type { InprocRunOptions, Sandbox as InprocSandbox } from './inproc.js';
import type { LocalSandbox } from './sandbox-here.js';
import { startAlt } from './servers.js';

export type Env = Record<string, string | undefined>;

export interface TempDir {
  /** A new empty directory, removed with all it holds after the test. */
  readonly path: string;
}

type AltServer = Awaited<ReturnType<typeof startAlt>>;

/**
 * A starter whose servers stop when the test ends: `start(…)` may be called any number of
 * times; all it started is stopped, in reverse order, by `stopAll`.
 */
function starter<A extends unknown[], S>(start: (...args: A) => Promise<S>, stop: (server: S) => Promise<void>) {
  const started: S[] = [];
  return {
    start: async (...args: A): Promise<S> => {
      const server = await start(...args);
      started.push(server);
      return server;
    },
    stopAll: async () => {
      for (const server of started.reverse()) await stop(server);
    },
  };
}

/** The fixtures of both layers: a test's own dirs and the servers it starts itself. */
export const test = base
  .extend('home', ({}, { onCleanup }): TempDir => {
    const dir = tmpDir('hostctl-home-');
    onCleanup(() => dir.cleanup());
    return { path: dir.path };
  })
  .extend('config', ({}, { onCleanup }): TempDir => {
    const dir = tmpDir('hostctl-config-');
    onCleanup(() => dir.cleanup());
    return { path: dir.path };
  })
  .extend('homeEnv', ({ home, config }): Env => ({ HOME: home.path, HOSTCTL_CONFIG_DIR: config.path }))
  .extend('newDir', ({}, { onCleanup }) => {
    const dirs: { cleanup(): void }[] = [];
    onCleanup(() => dirs.forEach((d) => d.cleanup()));
    /** Another new empty directory of the test's own (a second machine's config dir, say): its path. */
    return (prefix = 'hostctl-test-'): string => {
      const dir = tmpDir(prefix);
      dirs.push(dir);
      return dir.path;
    };
  })
  .extend('hostile', ({}, { onCleanup }) => {
    const servers = starter((behaviour: Behaviour) => startHostile(behaviour), (s: HostileServer) => s.close());
    onCleanup(servers.stopAll);
    return servers.start;
  })
  .extend('alt', ({}, { onCleanup }) => {
    const servers = starter((options: Parameters<typeof startAlt>[0] = {}) => startAlt(options), (s: AltServer) => s.stop());
    onCleanup(servers.stopAll);
    return servers.start;
  });

interface Stoppable {
  baseUrl: string;
  token: string;
  stop(): Promise<void>;
}

/** How a layer runs hostctl and starts the sandbox. */
interface Layer<S extends Stoppable, O extends RunOptions> {
  runCli(args: string[], opts?: O): Promise<RunResult>;
  startSandbox(args: string[]): Promise<S>;
}

export interface LayerOptions {
  /** The flags the file's sandbox starts with (the default: none). */
  sandbox?: readonly string[];
  /** hostctl's runs go to the file's sandbox, with its token, unless a run says otherwise. */
  runOnSandbox?: boolean;
}

/** The runner and sandbox fixtures over a layer (see LayerOptions). */
function layerTest<S extends Stoppable, O extends RunOptions>(load: () => Promise<Layer<S, O>>, options: LayerOptions) {
  const withSandbox = test
    .extend('sandbox', { scope: 'file' }, async ({}, { onCleanup }) => {
      const sandbox = await (await load()).startSandbox([...(options.sandbox ?? [])]);
      onCleanup(() => sandbox.stop());
      return sandbox;
    })
    .extend('sandboxEnv', ({ sandbox, config }): Env => ({ HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token, HOSTCTL_CONFIG_DIR: config.path }))
    .extend('sandboxes', async ({}, { onCleanup }) => {
      const { startSandbox } = await load();
      const servers = starter((args: string[] = []) => startSandbox(args), (s: S) => s.stop());
      onCleanup(servers.stopAll);
      return servers.start;
    });
  // What every run of the file adds to the test's home: the sandbox's address and token, or nothing.
  const aimed = options.runOnSandbox
    ? withSandbox.extend('runEnv', ({ sandbox }): Env => ({ HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token }))
    : withSandbox.extend('runEnv', (): Env => ({}));
  return aimed
    .extend('runOptions', (): Omit<O, 'env'> => ({}) as Omit<O, 'env'>)
    .extend('hostctl', async ({ homeEnv, runEnv, runOptions }) => {
      const { runCli } = await load();
      /**
       * Runs hostctl in the test's home (and at the file's sandbox, if so chosen); what a
       * call gives (`env`, `opts`) comes last. A file sets its own defaults by extending
       * `runEnv` and `runOptions`.
       */
      return (args: string[], env: Env = {}, opts: Omit<O, 'env'> = {} as Omit<O, 'env'>): Promise<RunResult> =>
        runCli(args, { ...runOptions, ...opts, env: { ...NO_PROXY_ENV, ...homeEnv, ...runEnv, ...env } } as O);
    });
}

/**
 * test/cli/: hostctl run in this worker, against the sandbox in this worker on a virtual
 * clock shared with the runs (inproc.ts; its flags are those inproc.ts knows). The sandbox
 * starts only if a test (or runOnSandbox) needs it.
 */
export function cliTest(options: LayerOptions = {}) {
  return layerTest<InprocSandbox, InprocRunOptions>(() => import('./inproc.js'), options);
}

/**
 * cliTest with `pty(args, env?, opts?)` beside `hostctl`: the same run on a terminal
 * (inproc.ts runInPty: stdin, stdout and stderr one screen of `opts.columns` × 50, as
 * `script` records it), in the test's home, with the file's `runEnv` and `runOptions`.
 */
export function cliTerminalTest(options: LayerOptions = {}) {
  return cliTest(options).extend('pty', async ({ homeEnv, runEnv, runOptions }) => {
    const { runInPty } = await import('./inproc.js');
    return (args: string[], env: Env = {}, opts: Omit<InprocRunOptions, 'env'> = {}): Promise<RunResult> =>
      runInPty(args, { ...runOptions, ...opts, env: { ...NO_PROXY_ENV, ...homeEnv, ...runEnv, ...env } });
  });
}

/**
 * test/e2e/: the built hostctl as a process (cli.ts). The sandbox serves from this worker
 * with the real clock (sandbox-here.ts), or, with `spawnSandbox`, is a `hostctl sandbox`
 * process of its own.
 */
export function e2eTest(options: LayerOptions & { spawnSandbox?: boolean } = {}) {
  return layerTest<LocalSandbox, RunOptions>(async () => {
    const cli = await import('./cli.js');
    const here = await import('./sandbox-here.js');
    const startSandbox = options.spawnSandbox ? (args: string[]) => cli.startSandbox(args) : (args: string[]) => here.startSandboxHere(here.sandboxFlags(args));
    return { runCli: cli.runCli, startSandbox };
  }, options);
}

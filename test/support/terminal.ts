// hostctl in a real pseudo-terminal (util-linux `script`, cli.ts runInPty) for the e2e files
// about a person's terminal: the e2e layer (fixtures.ts e2eTest) with `pty(args, env?, opts?)`
// and `typeInPty(args, steps, env?, opts?)`, which run the built CLI as `hostctl(…)` does (the
// test's home, no proxy variables, the file's sandbox if the layer was told `runOnSandbox`),
// on a terminal: CI is unset, since CI=true turns spinners off and these are about a
// person's terminal.

import { runInPty, runInPtyInteractive, type PtyStep, type RunOptions, type RunResult } from './cli.js';
import { e2eTest, type Env, type LayerOptions } from './fixtures.js';
import { NO_PROXY_ENV } from './hostile-server.js';

type PtyOptions = Omit<RunOptions, 'env'> & { columns?: number };

/** What the terminal shows: no escape sequences, no carriage returns. */
export const shown = (text: string): string => text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');

/** The e2e layer with `pty` and `typeInPty` (see the top of this file). */
export function terminalTest(options: LayerOptions & { spawnSandbox?: boolean } = {}) {
  return e2eTest(options)
    .extend('ptyEnv', ({ homeEnv, runEnv }) => (env: Env = {}): Env => ({ ...NO_PROXY_ENV, ...homeEnv, ...runEnv, CI: undefined, ...env }))
    .extend('pty', ({ ptyEnv }) => (args: string[], env: Env = {}, opts: PtyOptions = {}): Promise<RunResult> => runInPty(args, { ...opts, env: ptyEnv(env) }))
    .extend('typeInPty', ({ ptyEnv }) => (args: string[], steps: PtyStep[], env: Env = {}, opts: PtyOptions = {}): Promise<RunResult> => runInPtyInteractive(args, steps, { ...opts, env: ptyEnv(env) }));
}

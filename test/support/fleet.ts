// Machines of a fleet for the e2e fleet tests (test/e2e/fleet*.test.ts): real hostctl
// processes (the built CLI), each "machine" with its own config dir (state, budget file),
// home and XDG dirs, so that they share nothing but what the test gives them (the token,
// the Redis URL).

import { runCli, type RunResult } from './cli.js';
import { e2eTest, type LayerOptions } from './fixtures.js';

/** The environment of a machine of its own under `dir` (a new empty directory), with `env`. */
function machineEnv(dir: string, env: Record<string, string>): Record<string, string> {
  return { ...env, HOSTCTL_CONFIG_DIR: `${dir}/config`, HOME: `${dir}/home`, XDG_CONFIG_HOME: `${dir}/xdg-config`, XDG_CACHE_HOME: `${dir}/xdg-cache`, XDG_STATE_HOME: `${dir}/xdg-state` };
}

/**
 * `machines` machines (`envOf(i)` each) each running `args` `commands` times one after
 * another, all machines at once; `after` runs after each command, with the count done.
 */
export async function runFleet(o: {
  machines: number;
  commands: number;
  args: string[];
  envOf: (machine: number) => Record<string, string>;
  after?: (done: number) => Promise<void> | void;
}): Promise<RunResult[]> {
  let done = 0;
  const runs = await Promise.all(
    Array.from({ length: o.machines }, async (_, i) => {
      const env = o.envOf(i);
      const results: RunResult[] = [];
      for (let c = 0; c < o.commands; c++) {
        results.push(await runCli(o.args, { env, timeoutMs: 120_000 }));
        await o.after?.(++done);
      }
      return results;
    }),
  );
  return runs.flat();
}

/** The e2e layer with `machine(env)`: the environment of a machine of its own (machineEnv), removed after the test. */
export function fleetTest(options: LayerOptions & { spawnSandbox?: boolean } = {}) {
  return e2eTest(options).extend('machine', ({ newDir }) => (env: Record<string, string>): Record<string, string> => machineEnv(newDir('hostctl-fleet-'), env));
}

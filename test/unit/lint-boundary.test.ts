// The sandbox's corner is enforced by lint (eslint.config.js): these snippets, linted as
// if they stood at the given paths, show that the rule fails what it must and passes
// what it must.

import { describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';

const eslint = new ESLint({ cwd: process.cwd() });

async function boundaryErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-syntax').map((m) => m.message);
}

describe('the sandbox boundary', () => {
  it('client code may not import the sandbox, statically, by export-from or by import()', async () => {
    for (const code of [
      "import { startSandboxServer } from '../sandbox/server.js';\nvoid startSandboxServer;\n",
      "import type { Item } from '../sandbox/collections.js';\nexport type X = Item;\n",
      "export { handleApi } from '../sandbox/platform-api.js';\n",
      "export async function f(): Promise<unknown> {\n  return import('../sandbox/main.js');\n}\n",
    ]) {
      expect(await boundaryErrors('src/http/boundary-probe.ts', code), code).toEqual([expect.stringContaining('does not import the sandbox')]);
    }
    expect(await boundaryErrors('src/context.ts', "export async function f(): Promise<unknown> {\n  return import('./sandbox/server.js');\n}\n")).toHaveLength(1);
  });

  it('src/cli.ts may load ./sandbox/main.js with import(), and nothing else of the sandbox', async () => {
    expect(await boundaryErrors('src/cli.ts', "export async function f(): Promise<unknown> {\n  return import('./sandbox/main.js');\n}\n")).toEqual([]);
    expect(await boundaryErrors('src/cli.ts', "import { sandboxMain } from './sandbox/main.js';\nvoid sandboxMain;\n")).toHaveLength(1);
    expect(await boundaryErrors('src/cli.ts', "export async function f(): Promise<unknown> {\n  return import('./sandbox/server.js');\n}\n")).toHaveLength(1);
  });

  it('the sandbox imports only the listed shared modules of the client', async () => {
    const allowed = ['../resources.js', '../json/narrow.js', '../output/sanitize.js', '../config/url.js', '../config/atomic.js', './collections.js', 'node:fs'];
    for (const from of allowed) {
      expect(await boundaryErrors('src/sandbox/boundary-probe.ts', `import * as m from '${from}';\nvoid m;\n`), from).toEqual([]);
    }
    for (const from of ['../context.js', '../http/client.js', '../config/state.js', '../output/json.js', '../resources.js.bak']) {
      expect(await boundaryErrors('src/sandbox/boundary-probe.ts', `import * as m from '${from}';\nvoid m;\n`), from).toEqual([expect.stringContaining('imports from the client only')]);
    }
    expect(await boundaryErrors('src/sandbox/boundary-probe.ts', "export async function f(): Promise<unknown> {\n  return import('../auth/token.js');\n}\n")).toHaveLength(1);
  });
});

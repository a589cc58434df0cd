// What a person wiring `hostctl mcp` into an agent host reads: docs/mcp.md's tool table
// (checked against the tools' own schemas, so that it cannot go stale), its recipe for a
// token kept out of the host's configuration (run as written), `hostctl help mcp`, and
// the guides the program points to, which the npm package must hold. The three that start
// a program (the server, hostctl help, npm pack) run beside each other.

import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/mcp/tools.js';
import { RESOURCES } from '../../src/resources.js';
import { BIN, ROOT, runCli } from '../support/cli.js';
import { e2eTest } from '../support/fixtures.js';

const guide = readFileSync(join(ROOT, 'docs', 'mcp.md'), 'utf8');

const test = e2eTest();

/** The JSON type a schema stands for, as the table writes it. */
function typeOf(schema: Record<string, unknown>): string {
  if (schema.type === 'array') return `${String((schema.items as { type: string }).type)}[]`;
  return String(schema.type);
}

describe("docs/mcp.md's tool table", () => {
  const rows = new Map(
    [...guide.matchAll(/^\| `(\w+)` \| (.*?) \|/gm)].map((m) => [m[1] ?? '', m[2] ?? '']),
  );

  it('names every argument of every tool with the type and optionality of its input schema', () => {
    expect([...rows.keys()].sort()).toEqual(TOOLS.map((t) => t.name).sort());
    for (const tool of TOOLS) {
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
      const required = new Set((tool.inputSchema.required ?? []) as string[]);
      const want = Object.entries(properties).map(([name, schema]) => `${name}${required.has(name) ? '' : '?'}: ${typeOf(schema)}`);
      const cell = rows.get(tool.name) ?? '';
      const documented = [...cell.matchAll(/`(\w+\??)` \((\w+(?:\[\])?)/g)].map((m) => `${m[1]}: ${m[2]}`);
      expect(documented.sort(), tool.name).toEqual(want.sort());
      if (want.length === 0) expect(cell, tool.name).toBe('none');
    }
  });

  it('says what a resource is: one of the seven plural names', () => {
    const resource = (TOOLS[0]?.inputSchema.properties as Record<string, { enum: string[] }>).resource;
    expect(resource?.enum).toEqual(RESOURCES.map((r) => r.name));
    const sentence = /`resource` is one of the seven plural names: ([^.]*)\./.exec(guide.replace(/\s+/g, ' '))?.[1] ?? '';
    expect([...sentence.matchAll(/`([\w-]+)`/g)].map((m) => m[1])).toEqual(RESOURCES.map((r) => r.name));
  });
});

describe('a token kept out of the agent host configuration', { concurrent: true }, () => {
  test('the wrapper recipe of docs/mcp.md, as written, gives the server the token from a file', async ({ sandbox, home, onTestFinished }) => {
    const block = /<!-- mcp wrapper recipe: [^>]*-->\s*```json\n([\s\S]*?)```/.exec(guide)?.[1];
    expect(block).toBeDefined();
    const entry = (JSON.parse(block ?? '') as { mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }> }).mcpServers.hostctl!;
    expect(JSON.stringify(entry)).not.toMatch(/HOSTCTL_TOKEN"\s*:/);

    const dir = home;
    const bin = join(dir.path, 'bin');
    mkdirSync(bin);
    symlinkSync(BIN, join(bin, 'hostctl'));
    const secret = join(dir.path, 'hostctl-token');
    writeFileSync(secret, `${sandbox.token}\n`, { mode: 0o600 });
    const args = entry.args.map((a) => a.replace('/run/secrets/hostctl-token', secret));
    expect(args).not.toEqual(entry.args);

    // Only what an SDK-based host passes: a few variables of its own, and the entry's env.
    const transport = new StdioClientTransport({
      command: entry.command,
      args,
      env: { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: dir.path, HOSTCTL_CONFIG_DIR: join(dir.path, 'config'), XDG_CACHE_HOME: join(dir.path, 'cache'), ...entry.env, HOSTCTL_BASE_URL: sandbox.baseUrl },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'hostctl-docs-test', version: '1' });
    await client.connect(transport);
    onTestFinished(() => client.close());
    const status = await client.callTool({ name: 'auth_status', arguments: {} });
    expect(status.structuredContent).toMatchObject({ tokenSource: 'env', tokenLastFour: sandbox.token.slice(-4), baseUrl: sandbox.baseUrl });
    const apps = await client.callTool({ name: 'list_objects', arguments: { resource: 'apps', limit: 1 } });
    expect(apps.isError).toBeFalsy();
  });
});

describe('hostctl help mcp', { concurrent: true }, () => {
  it("fits 80 columns with every tool's description under one column", async () => {
    const r = await runCli(['help', 'mcp'], { env: { COLUMNS: '80' } });
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    const start = lines.indexOf('Its tools are read-only:');
    const block = lines.slice(start + 1, lines.indexOf('', start));
    const columns = new Set<number>();
    for (const line of block) {
      const item = /^ {2}(\w+) +/.exec(line);
      columns.add(item ? item[0].length : (/^ */.exec(line)?.[0].length ?? 0));
      if (item) expect(TOOLS.map((t) => t.name)).toContain(item[1]);
    }
    expect(block.filter((l) => /^ {2}\w/.test(l))).toHaveLength(TOOLS.length);
    expect([...columns]).toHaveLength(1);
  });
});

describe('the guides the program points to', { concurrent: true }, () => {
  it('are in the npm package, and so is every guide they link to', () => {
    const packed = new Set((JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })) as { files: { path: string }[] }[])[0]?.files.map((f) => f.path));
    // What the program prints (help, hints, errors): src/ less its comments.
    const named = new Set<string>();
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, e.name);
        if (e.isDirectory()) walk(path);
        else if (e.name.endsWith('.ts')) {
          for (const line of readFileSync(path, 'utf8').split('\n')) {
            if (/^\s*(\/\/|\/?\*)/.test(line)) continue;
            for (const m of line.matchAll(/docs\/[\w-]+\.md/g)) named.add(m[0]);
          }
        }
      }
    };
    walk(join(ROOT, 'src'));
    expect(named).toContain('docs/mcp.md');
    const todo = [...named];
    for (let doc = todo.pop(); doc !== undefined; doc = todo.pop()) {
      expect(packed.has(doc), doc).toBe(true);
      for (const m of readFileSync(join(ROOT, doc), 'utf8').matchAll(/\]\(([\w-]+\.md)(?:#[^)]*)?\)/g)) {
        const linked = `docs/${m[1] ?? ''}`;
        if (!named.has(linked)) {
          named.add(linked);
          todo.push(linked);
        }
      }
    }
  });
});

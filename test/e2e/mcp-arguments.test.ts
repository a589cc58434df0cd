// `hostctl mcp` refuses a tool's arguments exactly where the input schema it advertises in
// tools/list refuses them, and takes what it accepts: the cases below are made from the
// advertised schemas, not written by hand. The server has no base URL, so an accepted
// call ends at "no base URL" and nothing is ever sent.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectMcp, type McpSession } from '../support/mcp.js';

type Schema = Record<string, unknown>;

/** A value the schema takes. */
function valid(s: Schema): unknown {
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (Array.isArray(s.enum)) return s.enum[0];
  switch (type) {
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 1;
    case 'boolean':
      return true;
    case 'array':
      return [valid((s.items as Schema | undefined) ?? {})];
    case 'object':
      return {};
    default:
      return 'x';
  }
}

/** Values the schema refuses, one per keyword it has, each with what it breaks. */
function invalid(s: Schema): [string, unknown][] {
  const out: [string, unknown][] = [];
  const types = Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : [];
  if (types.length > 0) out.push(['type', types.includes('array') || types.includes('object') ? 7 : types.includes('string') ? [] : 'seven']);
  if (Array.isArray(s.enum)) out.push(['enum', `${String(s.enum[0])}-not`]);
  if (typeof s.minLength === 'number') out.push(['minLength', '']);
  if (typeof s.minimum === 'number') out.push(['minimum', s.minimum - 1]);
  if (typeof s.maximum === 'number') out.push(['maximum', s.maximum + 1]);
  if (types.includes('integer')) out.push(['integer', 1.5]);
  if (typeof s.minItems === 'number') out.push(['minItems', []]);
  if (typeof s.maxItems === 'number') out.push(['maxItems', Array.from({ length: s.maxItems + 1 }, () => valid((s.items as Schema | undefined) ?? {}))]);
  const items = s.items as Schema | undefined;
  if (items) for (const [k, v] of invalid(items)) out.push([`items.${k}`, [v]]);
  const rest = s.additionalProperties;
  if (rest && typeof rest === 'object') for (const [k, v] of invalid(rest as Schema)) out.push([`additionalProperties.${k}`, { name: v }]);
  return out;
}

interface Outcome {
  code?: string;
  message?: string;
}

async function outcome(client: Client, name: string, args: Record<string, unknown>): Promise<Outcome> {
  const r = (await client.callTool({ name, arguments: args })) as { content: { text: string }[] };
  const error = (JSON.parse(r.content[0]?.text ?? '{}') as { error?: Outcome }).error;
  return error ?? {};
}

const NOT_CONFIGURED = /has no base URL/;

describe('hostctl mcp checks arguments by the schemas it advertises', () => {
  let s: McpSession;
  let tools: { name: string; inputSchema: Schema }[];
  beforeAll(async () => {
    s = await connectMcp({});
    tools = (await s.client.listTools()).tools as { name: string; inputSchema: Schema }[];
  });
  afterAll(() => s.close());

  /** A tool's required arguments, each with a value its schema takes. */
  const base = (tool: { inputSchema: Schema }) => {
    const properties = (tool.inputSchema.properties ?? {}) as Record<string, Schema>;
    return Object.fromEntries(((tool.inputSchema.required ?? []) as string[]).map((n) => [n, valid(properties[n] ?? {})]));
  };

  it('takes every argument of every tool given a value its schema takes', async () => {
    expect(tools.length).toBeGreaterThan(5);
    for (const tool of tools) {
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, Schema>;
      for (const [name, schema] of Object.entries(properties)) {
        // call_operation takes one of two arguments: each is given alone.
        const args = tool.name === 'call_operation' ? { [name]: valid(schema) } : { ...base(tool), [name]: valid(schema) };
        const got = await outcome(s.client, tool.name, args);
        expect(got.message, `${tool.name} ${name}`).toMatch(NOT_CONFIGURED);
      }
    }
  });

  it('refuses, as a usage error naming the argument, every value a keyword of its schema refuses', async () => {
    let cases = 0;
    for (const tool of tools) {
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, Schema>;
      for (const [name, schema] of Object.entries(properties)) {
        for (const [keyword, value] of invalid(schema)) {
          cases++;
          const got = await outcome(s.client, tool.name, { ...base(tool), [name]: value });
          expect(got.code, `${tool.name} ${name} ${keyword}`).toBe('usage');
          expect(got.message, `${tool.name} ${name} ${keyword}`).toContain(`"${name}`);
        }
      }
    }
    expect(cases).toBeGreaterThan(20);
  });

  it('refuses an argument no schema names, and a required one left out', async () => {
    for (const tool of tools) {
      expect((await outcome(s.client, tool.name, { ...base(tool), nonesuch: 1 })).message, tool.name).toMatch(/takes no argument "nonesuch"/);
      for (const name of (tool.inputSchema.required ?? []) as string[]) {
        const args: Record<string, unknown> = base(tool);
        delete args[name];
        expect((await outcome(s.client, tool.name, args)).message, `${tool.name} ${name}`).toContain(`needs "${name}"`);
      }
    }
  });
});

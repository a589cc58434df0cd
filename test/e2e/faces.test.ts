// One question, the same requests, through every face: for each question (list with a
// relation filter, fetch by IDs, wait, an operation by name, an app's status), each face
// of hostctl (test/support/faces.ts: the command, the MCP tool, the library) asks it from a fresh
// config, and the server's log of method, path and query, in order, must be the same for
// all of them, on the sandbox and on the independent test server.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { altUnderTest, FACES, requestLines, sandboxUnderTest, type Face, type Question, type ServerUnderTest } from '../support/faces.js';

/** The questions, chosen from the server's own data: an app with two environments, and others beside it. */
async function questionsOf(server: ServerUnderTest): Promise<Record<string, Question>> {
  const apps = await server.objects('apps');
  const environments = await server.objects('environments');
  const envsOf = (app: unknown) => environments.filter((e) => Object.values(e).includes(app));
  const app = apps.find((a) => envsOf(a.publicId).length === 2);
  if (!app) throw new Error(`${server.name}: no app with two environments to ask about`);
  const appId = String(app.publicId);
  const envId = String(envsOf(appId)[0]?.publicId);
  const threeApps = apps.slice(0, 3).map((a) => String(a.publicId));
  const { operationId, parameter } = server.deploymentsOperation;
  return {
    'deployments of one app (list with a relation filter)': { kind: 'list', resource: 'deployments', filter: { flag: 'app', id: appId } },
    'three apps by ID (fetch by IDs)': { kind: 'get', resource: 'apps', ids: threeApps },
    'wait for three apps (a condition that holds)': { kind: 'wait', resource: 'apps', ids: threeApps, for: ['status!=never-a-status'] },
    'an operation by its name, with its path parameter': { kind: 'operation', operationId, params: { [parameter]: envId, page: '1' } },
    "an app's status": { kind: 'status', app: appId },
  };
}

describe.each([
  ['the sandbox', sandboxUnderTest],
  ['the independent test server', altUnderTest],
])('every face sends the same requests for the same question, on %s', (_name, start) => {
  let server: ServerUnderTest;
  let faces: Face[];
  let questions: Record<string, Question>;
  beforeAll(async () => {
    server = await start();
    faces = FACES.map((make) => make());
    questions = await questionsOf(server);
  });
  afterAll(async () => {
    for (const f of faces) await f.close();
    await server.stop();
  });

  it.each([
    'deployments of one app (list with a relation filter)',
    'three apps by ID (fetch by IDs)',
    'wait for three apps (a condition that holds)',
    'an operation by its name, with its path parameter',
    "an app's status",
  ])('%s', async (title) => {
    const question = questions[title]!;
    const sent: Record<string, string[]> = {};
    for (const face of faces) {
      if (face.asks && !face.asks.includes(question.kind)) continue;
      await server.clear();
      await face.ask(server, question);
      sent[face.name] = requestLines(await server.requests());
    }
    const [first, ...others] = Object.keys(sent);
    expect(sent[first!]!.length, `${first} sent nothing`).toBeGreaterThan(0);
    for (const other of others) expect(sent[other], `${other} against ${first}`).toEqual(sent[first!]);
  });
});

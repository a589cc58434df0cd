#!/usr/bin/env node
// node examples/deploy-watch.mjs ap-…
//
// A bot's ten lines with the hostctl library (docs/library.md): list an app's deployments,
// then wait until none of them is queued or building (at most 10 minutes). Settings as the
// CLI's: HOSTCTL_BASE_URL and HOSTCTL_TOKEN, or a profile from "hostctl auth login". It
// shares the token's budget with every hostctl on the machine, so it never meets a 429.
import { createClient, HostctlError } from 'hostctl';

const app = process.argv[2];
if (!app) {
  console.error('usage: node examples/deploy-watch.mjs ap-…');
  process.exit(2);
}

let client;
try {
  client = await createClient();
  const busy = [];
  for await (const d of client.list('deployments', { app })) {
    console.log(`${d.publicId}\t${d.environment}\t${d.status}`);
    if (d.status === 'queued' || d.status === 'building') busy.push(String(d.publicId));
  }
  if (busy.length > 0) {
    const done = await client.wait('deployments', busy, { for: ['status!=queued', 'status!=building'], deadline: '10m' });
    for (const d of done) console.log(`${d.publicId}\t${d.environment}\t${d.status} (finished)`);
  }
} catch (err) {
  if (!(err instanceof HostctlError)) throw err;
  // The CLI's message, its next step, and its exit code.
  console.error(`deploy-watch: ${err.message}${err.hint ? `\n${err.hint}` : ''}`);
  process.exitCode = err.exit;
} finally {
  await client?.close();
}

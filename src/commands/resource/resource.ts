// `hostctl <resource> list|get|wait` for every resource in the table (src/resources.ts):
// one definition and one implementation, seven resources, and the relation filters
// (`environments list --app ap-…`) the table declares. The verbs are beside it (list.ts,
// get.ts, wait.ts; watch.ts the run of --watch, by-id.ts the IDs argument, relations.ts
// the filter flags, seen.ts what the state keeps); what they ask is the core's (src/core/).

import type { Resource } from '../../resources.js';
import { idHint } from './by-id.js';
import { waitCommand } from './wait.js';
import { command, type HostctlCommand } from '../define.js';
import { getCommand } from './get.js';
import { listCommand } from './list.js';

/** `hostctl <resource>` and its verbs, for one resource of the table. */
export function resourceCommand(r: Resource): HostctlCommand {
  const cmd = command(r.name)
    .description(`${r.description}: list, get and wait`)
    .examples([`hostctl ${r.name} list`, `hostctl ${r.name} get ${idHint(r)}`])
    .seeAlso(['formatting', 'exit-codes']);
  for (const alias of r.aliases) cmd.alias(alias);
  cmd.addCommand(listCommand(r));
  cmd.addCommand(getCommand(r));
  cmd.addCommand(waitCommand(r));
  return cmd;
}

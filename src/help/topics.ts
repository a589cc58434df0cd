// The texts of `hostctl help <topic>`. A module of its own, in a chunk of its own in dist/
// (scripts/build.mjs), so that ordinary commands never load it.

export const TOPIC_TEXT: Readonly<Record<string, string>> = {
  environment: `Environment variables

  HOSTCTL_BASE_URL    the API base URL, ending in /v1 (same as --base-url). https only,
                      except loopback hosts (127.0.0.0/8, ::1, localhost).
  HOSTCTL_TOKEN       the token for this run. It wins over the keychain, and hostctl
                      never writes it anywhere.
  HOSTCTL_PROFILE     the profile to use (same as --profile); default "default".
  HOSTCTL_CONFIG_DIR  where the config and state files live, instead of the usual
                      place (~/.config/hostctl on Linux). For tests and portable installs.
  HOSTCTL_CACHE       accept answers up to this old from the local cache (same as
                      --cache, e.g. 10m); off by default.
  HOSTCTL_REDIS_URL   rediss://… (or redis:// on a loopback host) of a Redis that every
                      machine using the token shares: one rate budget and one --cache
                      (hostctl help fleet). Also the profile setting redisUrl. A Redis
                      Cluster: ?cluster=1 on the URL, which names one of its nodes.
  HOSTCTL_REDIS_REQUIRED
                      1: exit 6 when that Redis cannot be used, instead of one warning
                      and this machine's own budget.
  HOSTCTL_INTERACTIVE
                      1: a person waits for this run, so its requests get the next
                      free slots of the token's shared budget before batch commands';
                      0: a batch job. Default: 1 when stdout or stderr is a terminal
                      and CI is not "true".
  HOSTCTL_ACCESSIBLE  1: accessible output (no animation, no in-place redraws, plain
                      table separators); 0: not, whatever the config's "accessible"
                      says. See hostctl help accessibility.
  NO_COLOR            any value: no colour (same as --no-color).
  FORCE_COLOR         1, 2 or 3: colour even into a pipe; 0: none. It wins over NO_COLOR.
  CLICOLOR_FORCE      any value but 0: colour even into a pipe (after NO_COLOR).
  CLICOLOR            0: no colour, on a terminal too.
  TERM                dumb: no colour and no spinner.
  COLUMNS             the width of tables when stdout is not a terminal (default 80).
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY
                      honoured, in lower case too; NO_PROXY as curl reads it;
                      never for loopback hosts. --timeout and --retries bound a
                      proxy too; one that is not an http(s) URL is exit 2.
  BROWSER             the program "hostctl docs --open" runs.

Every setting is taken from, in this order: the flag, the environment variable, the
profile in the config file, the default. The profile itself comes from --profile, then
HOSTCTL_PROFILE, then the config's defaultProfile, then "default".

  $ HOSTCTL_TOKEN="$PLATFORM_TOKEN" HOSTCTL_BASE_URL=https://api.example.com/v1 hostctl apps list --json
  $ HOSTCTL_PROFILE=staging hostctl auth status
  $ hostctl config path        # where the config file is

See also: hostctl help formatting, hostctl help accessibility, hostctl auth --help,
hostctl config --help.
`,

  'exit-codes': `Exit codes

  0    success
  1    API or unexpected error (5xx, a malformed response)
  2    usage error: unknown command or flag, a bad base URL or profile name, or an
       ID that cannot be one: another resource's prefix (hostctl checks only the
       prefixes the API document states, ap- en- do-; not an ID's length or letters)
       or a character no ID has. Nothing was sent.
  3    not found: a 404, or an ID given to "get" that the API did not return
       (the others are printed)
  4    authentication: no token, token rejected, keychain unavailable
  5    rate limited and not retried (--no-wait, or --max-wait spent)
  6    network: connection refused, DNS, TLS, timeout
  7    wait: the --deadline passed before every object met the condition
  130  interrupted (Ctrl-C)
  143  terminated (SIGTERM), the sandbox included

Errors are one or two sentences on stderr, starting with "hostctl:", with the next step to
take; stdout carries data only. A stack trace is shown only with --verbose. With --json
or -o json|ndjson an error is one JSON line instead, whose "code" names its exit code:
1 api, 2 usage, 3 not_found, 4 auth, 5 rate_limited, 6 network, 7 deadline,
130 interrupted (hostctl help formatting).

A rejected token (exit 4) is never sent again: the platform locks out an address that
retries a rejected credential. Run "hostctl auth login" with a new token.

  $ hostctl apps get ap-1a2b3c4d5e --json > app.json
  $ case $? in 0) echo ok ;; 3) echo "no such app" ;; 4) echo "log in again" ;; 5) echo later ;; *) echo failed ;; esac

See also: hostctl help rate-limit.
`,

  formatting: `Output formats

stdout carries data only; notes, warnings, spinners and errors go to stderr.

  -o table    aligned columns, cut to the terminal, times as "3 days ago", colour.
              The default when stdout is a terminal.
  -o tsv      no header, one line per object, tab-separated, full ISO times. The default
              into a pipe or a file. Columns are fixed by the resource (publicId, then its
              default columns), so "cut -f2" means the same everywhere.
  -o json     the API's objects exactly as sent (big numbers kept), indented; --json is
              the same. "get" with one ID prints the object, with several an array.
  -o ndjson   one compact JSON object per line, printed as each page arrives.

--fields a,b,c keeps only these properties, in this order, in every format. A dotted
name reaches into a nested object where the API sends one: team.name when a server nests
the team as {"publicId", "name"}; where it sends the team's ID alone (the sandbox does),
the field is team. A field an object lacks is an empty cell in table and tsv, and left
out of JSON. A name no returned object has gets a warning listing the fields there are.

--jq EXPR runs real jq (built in; no jq needed) once over the whole JSON output, all
pages of --all as one array, and prints strings raw, as jq -r does. Big numbers stay
exact. A syntax error is exit 2, before any request.

"get" of one object on a terminal is a key/value view of every field. References to other
objects show as their name and ID, from the names hostctl has seen (no extra request).

Colour is on only on a terminal, and never with -q. Otherwise the first of these that is
set decides: FORCE_COLOR (0 or false: off; else on, into a pipe too), --no-color (off),
NO_COLOR (off), CLICOLOR_FORCE (not 0: on, into a pipe too), CLICOLOR=0 (off), TERM=dumb
(off, and no spinner either). A status keeps its word whatever its colour. Text from the
API is stripped of terminal control sequences in table and tsv; JSON keeps exact strings.

With --json or -o json|ndjson an error is one JSON line on stderr, and nothing else is
written there for it: {"error":{"code":…,"message":…,"hint":…,"exit":…}}. The code is one
of usage, api, not_found, auth, rate_limited, network, deadline, interrupted (one per exit
code, see hostctl help exit-codes), with retryAfter (seconds), ids (not found), status
(the HTTP status) or unmet (wait: each object's values) where they apply. Warnings are
{"warning":{"message":…}} lines.

--dry-run prints the request a command would send, one line (a JSON object with --json):
method, URL, headers with the token as ****+last 4, body. Nothing is sent and no budget is
spent; where later requests depend on its answer (--all, a filter that walks, wait,
--watch) only the first is printed, and stderr (or the JSON's "then") says what follows.

"hostctl commands --json" prints every command, argument and flag as data.

A profile may set its own default: hostctl config set profiles.default.output json.

  $ hostctl apps list --all --json | jq -r '.[].name'
  $ hostctl apps list -o tsv | cut -f1,2
  $ hostctl envs list --fields publicId,name,app
  $ hostctl apps list --all -o ndjson | jq -c '{publicId, name}'
  $ hostctl apps list --all --jq '.[] | select(.status == "failed") | .name'
  $ hostctl apps get ap-1a2b3c4d5e --json 2> err.json || jq -r .error.code err.json
  $ hostctl api /apps -X POST -f name=demo --dry-run

See also: hostctl help environment, hostctl help accessibility.
`,

  fleet: `Fleets: one budget across machines

The platform's limit is per token, and a team's token is shared far beyond one machine
(CI runners, a cron host, a deploy box). Each machine's own budget sees the others only in
the server's headers, after the fact. With a Redis that every machine reaches, they share
one sliding window (on Redis's clock) and one --cache:

  $ export HOSTCTL_REDIS_URL=rediss://:PASSWORD@redis.example.com:6379/0
  $ hostctl config set profiles.ci.redisUrl rediss://:PASSWORD@redis.example.com:6379/0

rediss:// is Redis with TLS (its CA as Node expects: NODE_EXTRA_CA_CERTS); plain redis://
is accepted for a loopback host only (exit 2 otherwise). The password is a secret like the
token: never printed (config list and get mask it). Redis holds only entries sealed with a
key derived from the token (AES-256-GCM), under names keyed by it: nothing another client
can read or forge. Every key of one token is in one hash slot. For a Redis Cluster, add
?cluster=1 to the URL, naming any one node:

  $ export HOSTCTL_REDIS_URL='rediss://:PASSWORD@redis.example.com:6379?cluster=1'

When Redis cannot be used (down, slow, full, wrong password, or it will not record a
reservation: answers that make no sense, a key that never stops changing, a user without
MULTI) the command goes on with this machine's own budget after one warning;
HOSTCTL_REDIS_REQUIRED=1 makes that exit 6 before any API request. hostctl mcp connects
again a few seconds after a fault.

  $ hostctl rate-limit        # says the budget is in Redis, what the fleet spent, who waits

See also: hostctl help rate-limit, docs/fleet.md.
`,

  mcp: `hostctl mcp: the API for coding agents

hostctl mcp serves the Model Context Protocol on stdin and stdout (one JSON-RPC
message per line; logs only on stderr), for the profile, base URL and token every
command uses (--profile, --base-url, HOSTCTL_TOKEN, the keychain). An agent host
starts it as a child process; closing stdin stops it (exit 0). With no base URL or
no token it still starts, and each call says what to set.

Its tools are read-only:
  list_objects     a page of one resource (app, environment or team filters), at
                   most 100 objects a call, nextCursor to continue: the requests
                   "list" sends
  get_objects      objects by public ID: one request for up to 100 IDs
  wait_for         polls until every object meets every condition: one request a
                   round
  app_status       one app at a glance, as "hostctl status --json": the requests
                   "status" sends
  rate_limit       the last rate-limit state seen: no request
  auth_status      profile, base URL, token source, last four characters: no
                   request
  list_operations  the API reference's operations: no request while hostctl's
                   copy is under a day old, else one
  call_operation   one GET or HEAD, by operationId or path: one request; anything
                   that writes is refused

The token never reaches the agent: every byte goes through the same scrubbing as
every command's output, and no tool prints it. A token the API rejects is not sent
again (a tool error says how to replace it). The agent's requests share the
token's budget at batch priority, so a person at a terminal goes first; each call
counts on its own, so a burst of calls waits instead of collecting 429s. A call
whose wait would pass --max-wait (each call has its own) returns a rate_limited
error with the seconds to wait; a call the client cancels sends nothing more.
Errors are tool results with isError and the code of hostctl help exit-codes.

With --http it serves the same tools over Streamable HTTP at /mcp (--listen,
default 127.0.0.1 on a free port) for agents that cannot start it: it prints
HOSTCTL_MCP_URL and HOSTCTL_MCP_KEY (HOSTCTL_MCP_KEY if set, else a new random
key); clients send "Authorization: Bearer <key>", never the platform token. Host
and Origin must be loopback names; off loopback it needs --tls-cert and
--tls-key. SIGINT or SIGTERM stops it (130, 143). --tools NAME,... offers only
those tools, on either transport.

  $ echo '{"jsonrpc":"2.0","id":1,"method":"ping"}' | hostctl mcp
  $ hostctl --max-wait 30 mcp < /dev/null

Registering it with agent hosts (Claude, VS Code, Cursor, CI) and giving it a token
without writing it into their configuration: docs/mcp.md, installed with hostctl
(in the directory "npm root -g" prints, under hostctl/docs/).
See also: hostctl help rate-limit.
`,

  'rate-limit': `The rate limit

The platform allows about 20 requests a minute per token, and says how many are left in
the X-RateLimit-Limit, -Remaining and -Reset headers of every response. hostctl reads
them, keeps the last state per token (by fingerprint, never the token) in its budget file,
and spends as few requests as it can: "get" with several IDs is one request, and nothing
is sent that a command does not need.

Every hostctl process on the machine shares one budget per token: before sending, a
process reserves a slot in a sliding window kept in the config directory (budget/), so
that parallel commands wait their turn instead of collecting 429s. Many machines with one
token share one budget in Redis: hostctl help fleet.

  -R, --rate-limit      after the command, one line on stderr:
                        Rate limit: 17/20 requests left, resets in 42s
  --no-wait             on a spent limit, exit 5 at once instead of waiting
  --max-wait SECONDS    the longest total wait of one command (default 120)
  --retries N           retries of a GET/HEAD after 502/503/504 or a dropped connection
                        (default 2); nothing else is ever resent
  --cache DURATION      answers up to DURATION old come from the local cache
                        (hostctl cache info|clear); off by default

When the last state says the window is spent, hostctl waits for the reset before it
sends, instead of collecting a 429. On a 429 it waits Retry-After and sends the same
request again, within --max-wait; on a terminal a spinner counts down, otherwise one note
goes to stderr. A wait longer than what --max-wait leaves fails at once with exit 5.

  $ hostctl rate-limit                 # the last state seen; sends nothing
  $ hostctl rate-limit --refresh       # spends one request
  $ hostctl apps list --all -R
  $ hostctl apps list --no-wait; if [ $? -eq 5 ]; then echo "rate limited, later"; fi
  $ id=$(hostctl deployments list --limit 1 -o tsv | cut -f1)
  $ hostctl deployments wait "$id" --for status!=queued --deadline 10m   # one request a round

A 401 is never retried: the platform locks out an address that retries a rejected
credential. See also: hostctl help exit-codes.
`,

  accessibility: `Accessible output

For screen readers, braille displays and plain terminals, HOSTCTL_ACCESSIBLE=1 (or
"hostctl config set accessible true"; HOSTCTL_ACCESSIBLE=0 overrides the config) changes:

  - no animation and nothing redrawn in place: the spinner becomes one plain line on
    stderr per change of state (a countdown is one line: "Rate limit reached: waiting
    12s before retrying"), with no carriage returns and no cursor movement;
  - --watch prints the whole table again below the last one, instead of redrawing it;
  - tables separate their columns with " | ", not only with spaces;
  - nothing is said by colour alone: a status keeps its word, a warning its "warning:".

Colour itself follows the usual conventions (hostctl help formatting): NO_COLOR or
--no-color turn it off; CLICOLOR=0 turns it off on a terminal; TERM=dumb means no colour
and no animation, with or without HOSTCTL_ACCESSIBLE.

For scripts rather than people: -o tsv or --json, where errors are JSON lines too, and
"hostctl commands --json" for the whole command tree.

  $ HOSTCTL_ACCESSIBLE=1 hostctl apps list --all
  $ hostctl config set accessible true

See also: hostctl help formatting, hostctl help environment.
`,

  sandbox: `The sandbox

"hostctl sandbox" runs a local copy of the platform's API on loopback: seeded, related
data for every resource, tokens, the rate limit and the lockout, as the platform document
describes them. Try hostctl and test scripts with no account.

It prints two lines on stdout, then serves until Ctrl-C:
  HOSTCTL_BASE_URL=http://127.0.0.1:PORT/v1
  HOSTCTL_TOKEN=<a token named "sandbox">
and on stderr, besides its log, the "export ..." line to paste into another terminal.

Start it in the background of this shell, with its log in a file (a sandbox.env left
from the last run would end the wait at once, so it goes first):

  $ rm -f sandbox.env
  $ hostctl sandbox > sandbox.env 2> sandbox.log &
  $ until [ -s sandbox.env ]; do sleep 0.2; done; set -a; . ./sandbox.env; set +a
  $ hostctl apps list
  $ kill %1

Or run "hostctl sandbox" in one terminal and paste the export line it prints into another.

Flags: --port N, --rate-limit N, --window SECONDS, --page-size N, --seed N, --state FILE
and more: hostctl sandbox --help. -q (only warnings and errors on stderr), -v and
--no-color also work before the word: hostctl -q sandbox. Tokens are made and revoked with loopback-only admin
endpoints (POST /_sandbox/tokens, DELETE /_sandbox/tokens/NAME). Where the platform
document is silent, the sandbox's choices are listed in docs/sandbox.md.
`,
};

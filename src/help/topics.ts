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
                      (hostctl help fleet). Also the profile setting redisUrl.
  HOSTCTL_REDIS_REQUIRED
                      1: exit 6 when that Redis cannot be used, instead of one warning
                      and this machine's own budget.
  HOSTCTL_INTERACTIVE 1: a person waits for this run, so its requests get the next
                      free slots of the token's shared budget before batch commands';
                      0: a batch job. Default: 1 when stdout or stderr is a terminal
                      and CI is not "true".
  NO_COLOR            any value: no colour (same as --no-color).
  FORCE_COLOR         1, 2 or 3: colour even into a pipe; 0: none. It wins over NO_COLOR.
  COLUMNS             the width of tables when stdout is not a terminal (default 80).
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY
                      honoured, in lower case too; never for loopback hosts.
  BROWSER             the program "hostctl docs --open" runs.

Every setting is taken from, in this order: the flag, the environment variable, the
profile in the config file, the default. The profile itself comes from --profile, then
HOSTCTL_PROFILE, then the config's defaultProfile, then "default".

  $ HOSTCTL_TOKEN="$PLATFORM_TOKEN" HOSTCTL_BASE_URL=https://api.example.com/v1 hostctl apps list --json
  $ HOSTCTL_PROFILE=staging hostctl auth status
  $ hostctl config path        # where the config file is

See also: hostctl help formatting, hostctl auth --help, hostctl config --help.
`,

  'exit-codes': `Exit codes

  0    success
  1    API or unexpected error (5xx, a malformed response)
  2    usage error: unknown command or flag, bad ID, bad base URL or profile name.
       Nothing was sent.
  3    not found: a 404, or an ID given to "get" that the API did not return
       (the others are printed)
  4    authentication: no token, token rejected, keychain unavailable
  5    rate limited and not retried (--no-wait, or --max-wait spent)
  6    network: connection refused, DNS, TLS, timeout
  7    wait: the --deadline passed before every object met the condition
  130  interrupted (Ctrl-C)

Errors are one or two sentences on stderr, starting with "hostctl:", with the next step to
take; stdout carries data only. A stack trace is shown only with --verbose.

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
name reaches into a nested object (--fields publicId,team.name). A field an object lacks
is an empty cell in table and tsv, and left out of JSON. A name no returned object has
gets a warning listing the fields there are.

--jq EXPR runs real jq (built in; no jq needed) once over the whole JSON output, all
pages of --all as one array, and prints strings raw, as jq -r does. Big numbers stay
exact. A syntax error is exit 2, before any request.

"get" of one object on a terminal is a key/value view of every field. References to other
objects show as their name and ID, from the names hostctl has seen (no extra request).

Colour is on only on a terminal. NO_COLOR, --no-color and -q turn it off; FORCE_COLOR=1
turns it on into a pipe. Text from the API is stripped of terminal control sequences in
table and tsv; JSON keeps exact strings.

A profile may set its own default: hostctl config set profiles.default.output json.

  $ hostctl apps list --all --json | jq -r '.[].name'
  $ hostctl apps list -o tsv | cut -f1,2
  $ hostctl envs list --fields publicId,name,app
  $ hostctl apps list --all -o ndjson | jq -c '{publicId, name}'
  $ hostctl apps list --all --jq '.[] | select(.status == "failed") | .name'

See also: hostctl help environment.
`,

  fleet: `Fleets: one budget across machines

The platform's limit is per token, and a team's token is shared far beyond one machine
(CI runners, a cron host, a deploy box). Each machine's own budget sees the others only in
the server's headers, after the fact. With a Redis that every machine reaches, they share
one sliding window (on Redis's clock) and one --cache:

  HOSTCTL_REDIS_URL=rediss://:PASSWORD@redis.example.com:6379/0
  hostctl config set profiles.ci.redisUrl rediss://:PASSWORD@redis.example.com:6379/0

rediss:// is Redis with TLS (its CA as Node expects: NODE_EXTRA_CA_CERTS); plain redis://
is accepted for a loopback host only (exit 2 otherwise). The password is a secret like the
token: never printed (config list and get mask it). Redis holds token fingerprints,
counters and cached API objects, never a token; every key of one token is in one hash slot
(Redis Cluster).

When Redis cannot be used (down, slow, full, wrong password) the command goes on with this
machine's own budget after one warning; HOSTCTL_REDIS_REQUIRED=1 makes that exit 6 before
any API request.

  $ hostctl rate-limit        # says the budget is in Redis, what the fleet spent, who waits

See also: hostctl help rate-limit, docs/fleet.md.
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
  $ hostctl deployments wait <id> --for status=succeeded --deadline 10m   # one request a round

A 401 is never retried: the platform locks out an address that retries a rejected
credential. See also: hostctl help exit-codes.
`,

  sandbox: `The sandbox

"hostctl sandbox" runs a local copy of the platform's API on loopback: seeded, related
data for every resource, tokens, the rate limit and the lockout, as the platform document
describes them. Try hostctl and test scripts with no account.

It prints two lines on stdout, then serves until Ctrl-C:
  HOSTCTL_BASE_URL=http://127.0.0.1:PORT/v1
  HOSTCTL_TOKEN=<a token named "sandbox">
and on stderr, besides its log, the "export ..." line to paste into another terminal.

Start it in the background of this shell, with its log in a file:

  $ hostctl sandbox > sandbox.env 2> sandbox.log &
  $ until [ -s sandbox.env ]; do sleep 0.2; done; set -a; . ./sandbox.env; set +a
  $ hostctl apps list
  $ kill %1

Or run "hostctl sandbox" in one terminal and paste the export line it prints into another.

Flags: --port N, --rate-limit N, --window SECONDS, --page-size N, --seed N, --state FILE
and more: hostctl sandbox --help. Tokens are made and revoked with loopback-only admin
endpoints (POST /_sandbox/tokens, DELETE /_sandbox/tokens/NAME). Where the platform
document is silent, the sandbox's choices are listed in docs/sandbox.md.
`,
};

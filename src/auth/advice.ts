// Where a new token comes from, for the messages about a rejected one. A hostctl sandbox
// says it is one in every response (X-Hostctl-Sandbox: 1); it has no dashboard, and a
// restarted sandbox has a new token. Nothing else of the sandbox is assumed here.

/** The response header by which a hostctl sandbox says it is one. */
const SANDBOX_HEADER = 'x-hostctl-sandbox';

/** Whether these (lower-case) response headers come from a hostctl sandbox. */
export function fromSandbox(headers: Readonly<Record<string, string>>): boolean {
  return headers[SANDBOX_HEADER] === '1';
}

/** The next step after a rejected token: the dashboard's, or the sandbox's. */
export function newTokenAdvice(sandbox: boolean): string {
  if (sandbox) {
    return (
      'This base URL is a hostctl sandbox: its token is the HOSTCTL_TOKEN line it printed when it started (a restarted sandbox has a new one; ' +
      'a token made with POST /_sandbox/tokens lasts across restarts with --state FILE). Run "hostctl auth login" with it, or set HOSTCTL_TOKEN to it.'
    );
  }
  return 'Create a new token in the dashboard (account menu, "API tokens") and run "hostctl auth login", or set HOSTCTL_TOKEN to the new token.';
}

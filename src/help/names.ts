// The help topics' names and one-line summaries: what `hostctl help` lists and Tab
// completes. Their texts are in topics.ts, loaded only by `hostctl help <topic>`.

export const HELP_TOPICS: Readonly<Record<string, string>> = {
  environment: 'Environment variables, and the order every setting is taken in',
  'exit-codes': 'What each exit code means, for scripts',
  fleet: 'One rate budget and one cache for many machines, in Redis',
  formatting: 'Output formats, --fields, and colour',
  'rate-limit': "The platform's rate limit, and how hostctl paces itself",
  mcp: 'hostctl mcp: the API for coding agents (Model Context Protocol)',
  sandbox: 'A local copy of the platform to try hostctl on',
  accessibility: 'Output for screen readers and plain terminals (HOSTCTL_ACCESSIBLE)',
};

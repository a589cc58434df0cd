// The --watch flags of `list` and `get`, worded once for both.

export const WATCH = 'fetch again every interval and print what changed, until Ctrl-C';
export const WATCH_INTERVAL = 'with --watch: time between rounds (default 5s; longer when the budget needs it)';

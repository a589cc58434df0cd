// The per-run context (gh's Factory): options, IO streams, config, profile, base URL,
// token and HTTP client, each built on first use, so a command loads only what it needs.
// It assembles: the global options come to it parsed (global-options.ts), and where a
// setting falls through to the config (the output format, the cache, accessible output)
// it weighs the two.

import { IO } from './io.js';
import { processRuntime, underCI, type Clock, type Runtime } from './runtime.js';
import { AuthError, UsageError } from './errors.js';
import { readConfig, type ConfigData, type OutputFormat, type ProfileConfig } from './config/config.js';
import { cacheDir, configDir, rejectedFallbackDirs, stateFile } from './config/paths.js';
import { checkConfigDir } from './config/trust.js';
import { parseBaseUrl } from './config/url.js';
import { resolveBaseUrl, resolveProfileName, type BaseUrlSource, type ProfileInputs } from './config/resolve.js';
import { parseDuration } from './config/duration.js';
import { StateStore } from './config/state.js';
import { linkOf, shownPath, type Link } from './config/link.js';
import type { RateState } from './http/ratelimit.js';
import { formatRateLine } from './output/rate-line.js';
import type { Token } from './auth/token.js';
import type { RedisBudgetStore } from './http/redis.js';
import type { HttpClient } from './http/client.js';
import type { ReferenceStore } from './core/operations.js';
import type { GlobalOptions } from './global-options.js';

declare const __HOSTCTL_VERSION__: string;
export const VERSION: string = typeof __HOSTCTL_VERSION__ === 'string' ? __HOSTCTL_VERSION__ : '0.0.0-dev';

export class Context {
  readonly io: IO;
  readonly opts: GlobalOptions;
  readonly env: NodeJS.ProcessEnv;
  readonly clock: Clock;
  private cachedConfig?: ConfigData;
  private cachedState?: StateStore;
  private cachedToken?: Promise<Token>;
  private readonly fleets = new Map<string, Promise<RedisBudgetStore | undefined>>();
  private cachedHttp?: Promise<HttpClient>;
  private cachedLink?: { link: Link | undefined };
  /** Where a link file is looked for. */
  readonly cwd: string;
  /**
   * This run does not read the link file (`link` and `unlink` replace or remove one that
   * hostctl refuses). Set before the profile is resolved.
   */
  ignoreLink = false;
  /**
   * This run's requests are a program's, whatever the terminals say (`hostctl mcp`: an
   * agent's calls wait behind a person's). Set before the first request.
   */
  batch = false;

  constructor(opts: GlobalOptions, rt: Runtime = processRuntime()) {
    this.opts = opts;
    this.env = rt.env;
    this.clock = rt.clock;
    this.cwd = rt.cwd ?? process.cwd();
    this.io = new IO({ env: rt.env, stdin: () => rt.stdin, stdout: rt.stdout, stderr: rt.stderr, quiet: opts.quiet, color: opts.color, json: opts.output === 'json' || opts.output === 'ndjson', accessible: () => this.accessible() });
  }

  /** HOSTCTL_ACCESSIBLE, else the config's `accessible`. */
  accessible(): boolean {
    return this.opts.accessible ?? this.config().accessible === true;
  }

  config(): ConfigData {
    return (this.cachedConfig ??= readConfig(this.env));
  }

  /** Forgets the cached config, after a command changed it. */
  reloadConfig(): ConfigData {
    this.cachedConfig = undefined;
    return this.config();
  }

  /** The nearest link file at or above the working directory, checked (a refused one is a usage error); memoised. */
  link(): Link | undefined {
    if (this.ignoreLink) return undefined;
    return (this.cachedLink ??= { link: linkOf(this.cwd) }).link;
  }

  /** What the profile and the base URL are resolved from (src/config/resolve.ts). */
  private inputs(): ProfileInputs {
    return { profile: this.opts.profile, baseUrl: this.opts.baseUrl, env: this.env, linkedProfile: () => this.link()?.profile, config: () => this.config() };
  }

  /** The profile of this run; a name that could not be a profile is a usage error. */
  profileName(): string {
    return resolveProfileName(this.inputs());
  }

  profile(): ProfileConfig | undefined {
    return this.config().profiles[this.profileName()];
  }

  /** The base URL and where it came from; undefined when none is set anywhere. */
  baseUrlSource(): BaseUrlSource | undefined {
    return resolveBaseUrl(this.inputs());
  }

  baseUrl(): URL {
    const src = this.baseUrlSource();
    if (!src) {
      // A profile named but missing is the cause, not the missing URL: name it.
      this.checkProfileExists();
      throw new UsageError(
        'No base URL is set: hostctl has no built-in default.',
        'Pass --base-url https://…/v1, set HOSTCTL_BASE_URL, or run "hostctl auth login --base-url …".',
      );
    }
    return parseBaseUrl(src.url, src.origin);
  }

  /** --json or -o, else the profile's `output`, else table on a terminal and tsv into a pipe. */
  outputFormat(): OutputFormat {
    return this.opts.output ?? this.profile()?.output ?? (this.io.stdoutIsTTY ? 'table' : 'tsv');
  }

  /**
   * --cache or HOSTCTL_CACHE, else the profile's `cache`: how old a cached answer may be
   * (0: no cache). The config keeps the profile's as it was written, so it is read here.
   */
  cacheMaxAgeMs(): number {
    if (this.opts.cacheMs !== undefined) return this.opts.cacheMs;
    const fromProfile = this.profile()?.cache;
    return fromProfile === undefined ? 0 : parseDuration(fromProfile, `profile "${this.profileName()}" cache`);
  }

  /**
   * A person at a terminal (stdout or stderr a TTY, not under CI) waits for this run: its
   * requests go before batch commands' in the shared budget. HOSTCTL_INTERACTIVE=1 or 0
   * says so instead (tests, wrappers).
   */
  interactive(): boolean {
    if (this.batch) return false;
    return this.opts.interactive ?? ((this.io.stdoutIsTTY || this.io.stderrIsTTY) && !underCI(this.env));
  }

  state(): StateStore {
    if (!this.cachedState) {
      // The marks there decide whether a token is sent: the directory must be the user's.
      checkConfigDir(configDir(this.env));
      this.cachedState = new StateStore(stateFile(this.env), rejectedFallbackDirs(this.env));
    }
    return this.cachedState;
  }

  /** The token for this run, wherever it comes from; no lockout check (auth status). */
  async resolveToken(o: { alwaysWarn?: boolean } = {}): Promise<Token> {
    const { resolveToken, storedFileToken } = await import('./auth/token.js');
    // A token this profile keeps in a file is cheap to know, and must not show either.
    this.io.addSecret(storedFileToken(this.profileName(), this.profile(), this.env));
    const token = await resolveToken(this.profileName(), this.profile(), this.env, this.io, o.alwaysWarn);
    this.io.addSecret(token.value);
    return token;
  }

  /**
   * The token for a request. The lockout guard runs here, before anything is sent: a
   * token the API rejected once is not sent again, because retrying a rejected
   * credential locks out the IP address.
   */
  token(): Promise<Token> {
    return (this.cachedToken ??= (async () => {
      this.checkProfileExists();
      const token = await this.resolveToken();
      const mark = this.state().rejected(token.fingerprint);
      if (mark) {
        throw new AuthError(
          `The API rejected this token (${token.source === 'env' ? 'HOSTCTL_TOKEN' : token.source}) on ${new Date(mark.at).toISOString()}; hostctl will not send it again, because retrying a rejected token locks out your IP address.`,
          (await import('./auth/advice.js')).newTokenAdvice(mark.sandbox === true),
        );
      }
      return token;
    })());
  }

  /**
   * A profile named by --profile or HOSTCTL_PROFILE must exist before anything is sent: a
   * typo would otherwise run with another base URL or token than meant.
   */
  checkProfileExists(): void {
    const linked = this.opts.profile === undefined && !this.env.HOSTCTL_PROFILE ? this.link() : undefined;
    if (this.opts.profile === undefined && !this.env.HOSTCTL_PROFILE && linked?.profile === undefined) return;
    const name = this.profileName();
    const profiles = Object.keys(this.config().profiles);
    if (profiles.includes(name)) return;
    if (linked?.profile !== undefined) {
      throw new UsageError(
        `The link file ${shownPath(linked.path)} names the profile ${name}, which your config does not have; known: ${profiles.length > 0 ? profiles.join(', ') : 'none'}.`,
        `Create it with "hostctl --profile ${name} auth login", pass --profile to use another, or link again with "hostctl link ${linked.app}".`,
      );
    }
    throw new UsageError(
      `There is no profile ${name}; known: ${profiles.length > 0 ? profiles.join(', ') : 'none'}.`,
      `Create it with "hostctl --profile ${name} auth login", or choose a known one.`,
    );
  }

  /**
   * The API reference of this run's base URL, kept in its config dir and fetched with
   * `client` (default the run's; an MCP call passes its own), a spinner while it is.
   */
  referenceStore(client: () => Promise<HttpClient> = () => this.http()): ReferenceStore {
    return {
      baseUrl: this.baseUrl(),
      env: this.env,
      now: this.clock.now,
      http: client,
      fetching: async () => {
        const spinner = await this.io.spinner('Fetching the API reference…');
        return () => spinner.stop();
      },
      warn: (message) => this.io.warn(message),
    };
  }

  /** The run's HTTP client, with the run's token and its response cache (memoised). */
  http(): Promise<HttpClient> {
    return (this.cachedHttp ??= (async () => {
      // Every setting is checked before the token is looked up, as before.
      this.clientSettings();
      if (this.opts.dryRun) return this.httpWith(await this.dryRunToken(), { cache: false });
      return this.httpWith(await this.token(), { cache: true });
    })());
  }

  /**
   * The token a dry run shows (masked): as token() finds it, but neither a missing token
   * nor a rejected mark stops it, since nothing is sent; each is said on stderr instead.
   */
  private async dryRunToken(): Promise<Token> {
    this.checkProfileExists();
    let token: Token;
    try {
      token = await this.resolveToken();
    } catch (err) {
      if (!(err instanceof AuthError)) throw err;
      this.io.warn(`dry run without a token: ${err.message} A real run would stop here (exit 4).`);
      return { value: '', source: 'env', fingerprint: 'none' };
    }
    const mark = this.state().rejected(token.fingerprint);
    if (mark) this.io.warn(`the API rejected this token on ${new Date(mark.at).toISOString()}: a real run would not send it, and would stop here (exit 4).`);
    return token;
  }

  /**
   * A client with this run's settings, clock and interactivity for `token`: the run's own
   * (http()), or one `auth login` checks before storing it, which skips the cache.
   */
  async httpWith(token: Token, o: { cache: boolean }): Promise<HttpClient> {
    const { baseUrl, timeoutMs, maxWaitMs, retries, cacheMs, interactive } = this.clientSettings();
    const { HttpClient } = await import('./http/client.js');
    const budgetStore = await this.fleetStore(token);
    // With a fleet's store, the cache is shared there too; an entry lapses an hour after it goes stale (revalidation).
    const shared = budgetStore && ((scope: string) => budgetStore.cacheStorage(scope, cacheMs + 3_600_000));
    const cache = o.cache && cacheMs > 0 ? new (await import('./http/cache.js')).ResponseCache(cacheDir(this.env), baseUrl, token.fingerprint, cacheMs, this.clock.now, shared) : undefined;
    return new HttpClient({
      baseUrl,
      baseUrlFrom: this.baseUrlSource()?.origin,
      token,
      userAgent: `hostctl/${VERSION}`,
      timeoutMs,
      maxWaitMs,
      wait: this.opts.wait,
      retries,
      cache,
      verbose: this.opts.verbose,
      state: this.state(),
      io: this.io,
      env: this.env,
      clock: this.clock,
      interactive,
      dryRun: this.opts.dryRun,
      budgetStore,
    });
  }

  /**
   * With a Redis URL set (HOSTCTL_REDIS_URL, profile redisUrl): the fleet's shared budget
   * (src/http/fleet.ts), opened once per token in a run (so that an unusable one warns once).
   * A dry run opens nothing: it neither reads nor reserves, and a store that is down must
   * not keep it from showing the request.
   */
  fleetStore(token: Token): Promise<RedisBudgetStore | undefined> {
    if (this.opts.dryRun) return Promise.resolve(undefined);
    const profileUrl = this.profile()?.redisUrl;
    if (!this.env.HOSTCTL_REDIS_URL && !profileUrl) return Promise.resolve(undefined);
    const opened = this.fleets.get(token.fingerprint);
    if (opened) return opened;
    const opening = import('./http/fleet.js').then(({ openFleetStore }) =>
      openFleetStore({
        env: this.env,
        profileUrl,
        profileName: this.profileName(),
        statePath: this.state().path,
        fingerprint: token.fingerprint,
        token: token.value,
        now: this.clock.now,
        warn: (text) => this.io.warn(text),
        secret: (value) => this.io.addSecret(value),
      }),
    );
    this.fleets.set(token.fingerprint, opening);
    return opening;
  }

  private clientSettings() {
    return {
      baseUrl: this.baseUrl(),
      timeoutMs: this.opts.timeoutMs,
      maxWaitMs: this.opts.maxWaitMs,
      retries: this.opts.retries,
      cacheMs: this.cacheMaxAgeMs(),
      interactive: this.interactive(),
    };
  }

  /** The last rate-limit state seen for this run's token, if a token was used. */
  async lastRate(): Promise<RateState | undefined> {
    if (!this.cachedToken) return undefined;
    const token = await this.cachedToken.catch(() => undefined);
    if (!token) return undefined;
    const http = await this.cachedHttp?.catch(() => undefined);
    if (http) return http.lastRate();
    const store = await this.fleetStore(token);
    const { lastRate, Budget } = await import('./http/budget.js');
    if (store) return new Budget(store).rate();
    return lastRate(this.state().path, token.fingerprint);
  }

  /**
   * With a fleet's shared store set: where it is and what its window holds now (`hostctl
   * rate-limit`); undefined without one, or when it cannot be used (a warning said so).
   */
  async fleetWindow(): Promise<{ where: string; spent?: number; limit?: number; waiting: number } | undefined> {
    const store = await this.fleetStore(await this.token());
    if (!store) return undefined;
    const d = await store.read();
    if (!store.where.startsWith('redis ')) return undefined;
    const { windowUse } = await import('./http/budget.js');
    const use = windowUse(d, store.now());
    return { where: store.where.slice('redis '.length), spent: use.spent, limit: use.limit, waiting: use.waiting };
  }

  /**
   * After the command: keep its cached answers if it `succeeded` (a failed run may have
   * failed on one of them), save state, then the -R line. Never throws.
   */
  async finish(succeeded = false): Promise<void> {
    this.io.stopSpinners();
    const http = await this.cachedHttp?.catch(() => undefined);
    // The writes a page walk started finish either way; the rest only after a success.
    await http?.options.cache?.commit(succeeded).catch(() => undefined);
    // Read before the client closes: a fleet's rate state is in its shared store.
    const rate = this.opts.rateLimit ? await this.lastRate().catch(() => undefined) : undefined;
    await http?.close();
    for (const fleet of this.fleets.values()) (await fleet.catch(() => undefined))?.close();
    if (this.opts.rateLimit) this.io.stderr.write(`${formatRateLine(rate, this.clock.now(), http?.requestCount ?? 0, http?.options.cache?.hits)}\n`);
    this.cachedState?.save();
  }
}

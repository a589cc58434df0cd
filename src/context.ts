// The per-run context (gh's Factory): options, IO streams, config, profile, base URL,
// token and HTTP client, each built on first use, so a command loads only what it needs.

import { IO } from './io.js';
import { AuthError, UsageError } from './errors.js';
import { readConfig, isOutputFormat, type ConfigData, type OutputFormat, type ProfileConfig } from './config/config.js';
import { stateFile } from './config/paths.js';
import { StateStore, type RateState } from './config/state.js';
import type { Token } from './auth/token.js';
import type { HttpClient } from './http/client.js';

declare const __HOSTCTL_VERSION__: string;
export const VERSION: string = typeof __HOSTCTL_VERSION__ === 'string' ? __HOSTCTL_VERSION__ : '0.0.0-dev';

/** The global options, as commander hands them over (optsWithGlobals). */
export interface GlobalOptions {
  baseUrl?: string;
  profile?: string;
  json?: boolean;
  output?: string;
  fields?: string;
  /** --jq EXPR, run over the JSON output (output/jq.ts). */
  jq?: string;
  rateLimit?: boolean;
  /** false with --no-wait */
  wait?: boolean;
  maxWait?: string;
  timeout?: string;
  verbose?: boolean;
  quiet?: boolean;
  /** false with --no-color */
  color?: boolean;
}

// Exactly the contract's list. Not `*.localhost`: where the resolver is `files dns` (most
// Linux), such a name is asked of the DNS server, which could point it anywhere, and the
// token would travel there in clear text.
const LOOPBACK_HOSTS = new Set(['localhost', '[::1]', '::1']);

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  if (LOOPBACK_HOSTS.has(h)) return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/**
 * Checks a base URL: https, or http on a loopback host only, so that a token never
 * crosses a network in clear text. Returns it without a trailing slash.
 */
export function parseBaseUrl(raw: string, origin: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`The base URL from ${origin} is not a valid URL: "${raw}".`, 'Give a URL such as https://api.example.com/v1.');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw new UsageError(
      `Refusing base URL ${url.origin} from ${origin}: the token may only travel over https (plain http is allowed for loopback hosts only).`,
      'Use an https:// base URL.',
    );
  }
  if (url.username || url.password) {
    throw new UsageError(`The base URL from ${origin} must not contain credentials.`, 'Remove the user:password@ part.');
  }
  url.search = '';
  url.hash = '';
  url.pathname = url.pathname.replace(/\/+$/, '');
  return url;
}

export function parseSeconds(raw: string | undefined, flag: string, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < 0) {
    throw new UsageError(`${flag} takes a number of seconds, not "${raw}".`, `For example: ${flag} 30`);
  }
  return n;
}

export class Context {
  readonly io: IO;
  readonly opts: GlobalOptions;
  readonly env: NodeJS.ProcessEnv;
  private cachedConfig?: ConfigData;
  private cachedState?: StateStore;
  private cachedToken?: Promise<Token>;
  private cachedHttp?: Promise<HttpClient>;

  constructor(opts: GlobalOptions, env: NodeJS.ProcessEnv = process.env, io?: IO) {
    this.opts = opts;
    this.env = env;
    this.io = io ?? new IO({ env, quiet: opts.quiet, color: opts.color });
  }

  config(): ConfigData {
    return (this.cachedConfig ??= readConfig(this.env));
  }

  /** Forgets the cached config, after a command changed it. */
  reloadConfig(): ConfigData {
    this.cachedConfig = undefined;
    return this.config();
  }

  profileName(): string {
    if (this.opts.profile) return this.opts.profile;
    if (this.env.HOSTCTL_PROFILE) return this.env.HOSTCTL_PROFILE;
    // Only read the config when neither flag nor environment names the profile.
    return this.config().defaultProfile ?? 'default';
  }

  profile(): ProfileConfig | undefined {
    return this.config().profiles[this.profileName()];
  }

  /** The base URL and where it came from; undefined when none is set anywhere. */
  baseUrlSource(): { url: string; origin: string } | undefined {
    if (this.opts.baseUrl) return { url: this.opts.baseUrl, origin: '--base-url' };
    if (this.env.HOSTCTL_BASE_URL) return { url: this.env.HOSTCTL_BASE_URL, origin: 'HOSTCTL_BASE_URL' };
    const fromProfile = this.profile()?.baseUrl;
    if (fromProfile) return { url: fromProfile, origin: `profile "${this.profileName()}"` };
    return undefined;
  }

  baseUrl(): URL {
    const src = this.baseUrlSource();
    if (!src) {
      throw new UsageError(
        'No base URL is set: hostctl has no built-in default.',
        'Pass --base-url https://…/v1, set HOSTCTL_BASE_URL, or run "hostctl auth login --base-url …".',
      );
    }
    return parseBaseUrl(src.url, src.origin);
  }

  outputFormat(): OutputFormat {
    if (this.opts.json) return 'json';
    if (this.opts.output !== undefined) {
      if (!isOutputFormat(this.opts.output)) {
        throw new UsageError(`Unknown output format "${this.opts.output}".`, 'Use -o table, json, ndjson or tsv.');
      }
      return this.opts.output;
    }
    const fromProfile = this.profile()?.output;
    if (fromProfile) return fromProfile;
    return this.io.stdoutIsTTY ? 'table' : 'tsv';
  }

  fields(): string[] | undefined {
    if (this.opts.fields === undefined) return undefined;
    const list = this.opts.fields.split(',').map((f) => f.trim()).filter(Boolean);
    if (list.length === 0) throw new UsageError('--fields needs at least one field name.', 'For example: --fields publicId,name');
    return list;
  }

  timeoutMs(): number {
    const s = parseSeconds(this.opts.timeout, '--timeout', 30);
    if (s === 0) throw new UsageError('--timeout must be more than 0 seconds.', 'For example: --timeout 30');
    return s * 1000;
  }

  maxWaitMs(): number {
    return parseSeconds(this.opts.maxWait, '--max-wait', 120) * 1000;
  }

  state(): StateStore {
    return (this.cachedState ??= new StateStore(stateFile(this.env)));
  }

  /** The token for this run, wherever it comes from; no lockout check (auth status). */
  async resolveToken(): Promise<Token> {
    const { resolveToken } = await import('./auth/token.js');
    return resolveToken(this.profileName(), this.profile(), this.env, this.io);
  }

  /**
   * The token for a request. The lockout guard runs here, before anything is sent: a
   * token the API rejected once is not sent again, because retrying a rejected
   * credential locks out the IP address.
   */
  token(): Promise<Token> {
    return (this.cachedToken ??= (async () => {
      const token = await this.resolveToken();
      const mark = this.state().rejected(token.fingerprint);
      if (mark) {
        throw new AuthError(
          `The API rejected this token (${token.source === 'env' ? 'HOSTCTL_TOKEN' : token.source}) on ${new Date(mark.at).toISOString()}; hostctl will not send it again, because retrying a rejected token locks out your IP address.`,
          'Create a new token in the dashboard (account menu, "API tokens") and run "hostctl auth login", or set HOSTCTL_TOKEN to the new token.',
        );
      }
      return token;
    })());
  }

  http(): Promise<HttpClient> {
    return (this.cachedHttp ??= (async () => {
      const baseUrl = this.baseUrl();
      const timeoutMs = this.timeoutMs();
      const maxWaitMs = this.maxWaitMs();
      const token = await this.token();
      const { HttpClient } = await import('./http/client.js');
      return new HttpClient({
        baseUrl,
        token,
        userAgent: `hostctl/${VERSION}`,
        timeoutMs,
        maxWaitMs,
        wait: this.opts.wait !== false,
        verbose: this.opts.verbose === true,
        state: this.state(),
        io: this.io,
      });
    })());
  }

  /** The last rate-limit state seen for this run's token, if a token was used. */
  async lastRate(): Promise<RateState | undefined> {
    if (!this.cachedToken) return undefined;
    const token = await this.cachedToken.catch(() => undefined);
    return token ? this.state().getRate(token.fingerprint) : undefined;
  }

  /** After the command: save state, then the -R line. Never throws. */
  async finish(): Promise<void> {
    this.io.stopSpinners();
    if (this.cachedHttp) await (await this.cachedHttp.catch(() => undefined))?.close();
    if (this.opts.rateLimit) {
      const rate = await this.lastRate();
      this.io.stderr.write(`${formatRateLine(rate)}\n`);
    }
    this.cachedState?.save();
  }
}

export function formatRateLine(rate: RateState | undefined, now = Date.now()): string {
  if (!rate || rate.remaining === undefined) return 'Rate limit: unknown (no response seen yet for this token)';
  const limit = rate.limit !== undefined ? `/${rate.limit}` : '';
  let reset = '';
  if (rate.resetAt !== undefined) {
    const secs = Math.max(0, Math.ceil((rate.resetAt - now) / 1000));
    reset = `, resets in ${secs}s`;
  }
  return `Rate limit: ${rate.remaining}${limit} requests left${reset}`;
}

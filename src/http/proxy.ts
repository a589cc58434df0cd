// The proxy a request goes through (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, chosen here and not
// by undici, so that the error names the same proxy the request used), and the bound on its
// connection attempts. undici's ProxyAgent opens a tunnel again at once when a proxy closes
// the connection after CONNECT, without end and past any abort signal
// (nodejs/undici#3897): tens of thousands of CONNECTs a second, each with the proxy's
// credentials. hostctl allows one tunnel attempt per exchange, whatever undici does; the
// retry layer decides about another.

import type { Dispatcher } from 'undici';
import { UsageError } from '../errors.js';
import { isLoopbackHost, maskCredentials } from '../config/url.js';
import { oneLine } from '../output/sanitize.js';
import { noProxyMatches } from './noproxy.js';

type Undici = typeof import('undici');

export interface ProxyChoice {
  url: URL;
  /** The variable it came from, for messages. */
  variable: string;
  /** host:port, never the credentials. */
  label: string;
}

function firstSet(env: NodeJS.ProcessEnv, names: readonly string[]): [string, string] | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return [name, value];
  }
  return undefined;
}

/**
 * The proxy for this URL, or undefined to go direct: loopback hosts and hosts NO_PROXY
 * names always go direct. As curl: an https URL uses https_proxy / HTTPS_PROXY (then the
 * HTTP ones, as undici does), a scheme-less value is http://. A value that is not an
 * http(s) URL is a usage error naming the variable.
 */
export function proxyFor(url: URL, env: NodeJS.ProcessEnv): ProxyChoice | undefined {
  if (isLoopbackHost(url.hostname)) return undefined;
  const httpNames = ['http_proxy', 'HTTP_PROXY'];
  const found = firstSet(env, url.protocol === 'https:' ? ['https_proxy', 'HTTPS_PROXY', ...httpNames] : httpNames);
  if (!found) return undefined;
  if (noProxyMatches(url, env.no_proxy ?? env.NO_PROXY)) return undefined;
  const [variable, value] = found;
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  let proxy: URL | undefined;
  try {
    proxy = new URL(text);
  } catch {
    proxy = undefined;
  }
  const shown = oneLine(maskCredentials(value), 120);
  if (!proxy || !proxy.hostname) {
    throw new UsageError(`${variable} is not a valid proxy URL: ${shown}.`, `Set ${variable} to a URL such as http://proxy.example.com:3128, or unset it.`);
  }
  if (proxy.protocol !== 'http:' && proxy.protocol !== 'https:') {
    throw new UsageError(`${variable} names a ${oneLine(proxy.protocol, 20)} proxy (${shown}); hostctl uses http:// and https:// proxies only.`, `Set ${variable} to an http:// or https:// proxy, or unset it.`);
  }
  const port = proxy.port || (proxy.protocol === 'https:' ? '443' : '80');
  return { url: proxy, variable, label: `${proxy.hostname}:${port}` };
}

/** The error a second tunnel attempt within one exchange fails with (failures.ts reads its code). */
export const PROXY_RETRY_CODE = 'HOSTCTL_PROXY_CLOSED';

/**
 * Counts the tunnels opened through one proxy, and refuses a second attempt within one
 * exchange: undici then fails the request with this error instead of trying again.
 */
export class ProxyGate {
  /** CONNECT requests sent. */
  attempts = 0;
  private allowedUpTo = 0;
  private lastFailure: unknown;

  /** A new exchange begins: it may open one tunnel (a kept-alive one needs none). */
  begin(): void {
    this.allowedUpTo = this.attempts + 1;
    this.lastFailure = undefined;
  }

  async connect<T>(open: () => Promise<T>): Promise<T> {
    if (this.attempts >= this.allowedUpTo) {
      const err = new Error('The proxy closed the connection before the tunnel was open.', { cause: this.lastFailure });
      Object.assign(err, { code: PROXY_RETRY_CODE });
      throw err;
    }
    this.attempts++;
    try {
      return await open();
    } catch (err) {
      this.lastFailure = err;
      throw err;
    }
  }
}

/**
 * undici's ProxyAgent for this proxy, its tunnels counted by `gate`; the connection to the
 * proxy has the run's timeouts too (undici's default would wait 300 s for the proxy's answer).
 */
export function boundedProxyAgent(undici: Undici, proxy: ProxyChoice, opts: { connect: { timeout: number }; headersTimeout: number; bodyTimeout: number; keepAliveTimeout: number }, gate: ProxyGate): Dispatcher {
  return new undici.ProxyAgent({
    ...opts,
    uri: proxy.url.href,
    clientFactory: (origin: URL, options: object) => {
      const pool = new undici.Pool(origin, { ...options, headersTimeout: opts.headersTimeout, bodyTimeout: opts.bodyTimeout });
      const connect = pool.connect.bind(pool) as (o: Dispatcher.ConnectOptions) => Promise<Dispatcher.ConnectData>;
      Object.defineProperty(pool, 'connect', { value: (o: Dispatcher.ConnectOptions) => gate.connect(() => connect(o)), writable: true, configurable: true });
      return pool;
    },
  });
}

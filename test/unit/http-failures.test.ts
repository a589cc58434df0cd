// The sentences a failed request ends in (src/http/failures.ts): each status and each way
// the network fails, as the typed error with its exit code, its one-sentence message and
// its next step, exactly as the user reads them. Pure functions: no server, no clock.

import { describe, expect, it } from 'vitest';
import { ApiError, AuthError, NetworkError, NotFoundError, RateLimitError } from '../../src/errors.js';
import { errorDetail, networkError, statusError, tooDeepError, type NetworkContext, type StatusContext } from '../../src/http/failures.js';
import { PROXY_RETRY_CODE } from '../../src/http/proxy.js';
import { newTokenAdvice } from '../../src/auth/advice.js';

const URL_APPS = new URL('https://api.example.invalid/v1/apps?page=2');

/** A final answer of `status` to GET /v1/apps?page=2, from the base URL's origin. */
const answered = (status: number, statusText: string, over: Partial<StatusContext> = {}): StatusContext => ({
  status,
  statusText,
  method: 'GET',
  url: URL_APPS,
  text: '',
  contentType: undefined,
  ...over,
});

/** What the user reads of an error: its class, message, next step and (ApiError) status. */
const seen = (err: Error) => ({
  type: err.constructor.name,
  message: err.message,
  hint: (err as ApiError).hint,
  status: (err as ApiError).status,
});

describe('statusError', () => {
  it('a 401 that came from another origin after a redirect blames the redirect, not the token', () => {
    const err = statusError(answered(401, 'Unauthorized', { url: new URL('https://other.invalid/login'), tokenSent: false }));
    expect(err).toBeInstanceOf(ApiError);
    expect(seen(err)).toEqual({
      type: 'ApiError',
      message: "A redirect led to https://other.invalid, which asks for credentials (401); hostctl sends the token only to the base URL's origin.",
      hint: 'Check --base-url; it should point at the API itself.',
      status: 401,
    });
  });

  it('another status from another origin is that status, not the redirect\'s 401', () => {
    const err = statusError(answered(404, 'Not Found', { url: new URL('https://other.invalid/v1/apps'), tokenSent: false }));
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.message).toBe('Not found: GET /v1/apps (404).');
  });

  it('a 401 whose mark could be written nowhere says to stop using the token now, with where a new one comes from', () => {
    for (const sandbox of [false, true]) {
      const err = statusError(answered(401, 'Unauthorized', { tokenSent: true, unrecorded: true, sandbox }));
      expect(err).toBeInstanceOf(AuthError);
      expect(err.message).toBe(
        'The API rejected the token (401 Unauthorized for GET /v1/apps?page=2), and hostctl could not record this: neither the config dir nor any fallback place can be written, so the next run would send it again, and retrying a rejected token locks out your IP address.',
      );
      expect(err.hint).toBe(`Stop using this token now: unset HOSTCTL_TOKEN or run "hostctl auth logout". ${newTokenAdvice(sandbox)}`);
    }
    // The two pieces of advice differ: the sandbox's names its own token, the other the dashboard.
    expect(newTokenAdvice(true)).toMatch(/^This base URL is a hostctl sandbox/);
    expect(newTokenAdvice(false)).toMatch(/^Create a new token in the dashboard/);
  });

  it('a 401 recorded as usual says the token will not be sent again, and where a new one comes from', () => {
    const err = statusError(answered(401, 'Unauthorized', { tokenSent: true, unrecorded: false, sandbox: true }));
    expect(err).toBeInstanceOf(AuthError);
    expect(err.message).toBe('The API rejected the token (401 Unauthorized for GET /v1/apps?page=2). hostctl will not send this token again, because retrying a rejected token locks out your IP address.');
    expect(err.hint).toBe(newTokenAdvice(true));
  });

  it('a 429 still there after the resends is a RateLimitError (exit 5): hostctl gave up, wait a minute', () => {
    const err = statusError(answered(429, 'Too Many Requests', { text: '{"detail":"slow down"}', contentType: 'application/json' }));
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.exitCode).toBe(5);
    expect(err.message).toBe('The API kept answering 429 Too Many Requests for GET /v1/apps?page=2; hostctl gave up resending.');
    expect(err.hint).toBe('Wait a minute and run the command again.');
  });

  it('a 5xx is the server\'s problem: try again later, its words quoted', () => {
    const err = statusError(answered(503, 'Service Unavailable', { text: '{"detail":"database down"}', contentType: 'application/json' }));
    expect(seen(err)).toEqual({
      type: 'ApiError',
      message: 'The API failed with 503 Service Unavailable for GET /v1/apps?page=2. The server said: "database down".',
      hint: 'This is a server-side problem; try again later.',
      status: 503,
    });
  });

  it('a redirect left unfollowed (300 to 399) says the base URL is not the API itself', () => {
    for (const [status, text] of [[300, 'Multiple Choices'], [302, 'Found'], [399, '']] as const) {
      const err = statusError(answered(status, text, { text: '{"title":"Moved to the new API"}', contentType: 'application/json' }));
      expect(seen(err)).toEqual({
        type: 'ApiError',
        message: `The API answered ${status}${text ? ` ${text}` : ''} for GET /v1/apps?page=2 with no usable redirect. The server said: "Moved to the new API".`,
        hint: 'Check --base-url; it should point at the API itself (ending in /v1).',
        status,
      });
    }
  });

  it('any other status (a 400, a 422, even a 200 where none was expected) is a refusal of the request as sent', () => {
    for (const [status, text] of [[400, 'Bad Request'], [422, 'Unprocessable Entity'], [200, 'OK']] as const) {
      const err = statusError(answered(status, text));
      expect(seen(err)).toEqual({
        type: 'ApiError',
        message: `The API refused the request with ${status} ${text} for GET /v1/apps?page=2.`,
        hint: 'Check the command and its arguments; run with --verbose to see the exchange.',
        status,
      });
    }
  });

  it('the server\'s words get a full stop of their own, unless they end a sentence with one', () => {
    const said = (detail: string) => statusError(answered(500, 'Internal Server Error', { text: JSON.stringify({ detail }), contentType: 'application/json' })).message;
    expect(said('Try later!')).toBe('The API failed with 500 Internal Server Error for GET /v1/apps?page=2. The server said: "Try later!"');
    // A quoted sentence inside the words does not end them.
    expect(said('It said "stop." and stopped')).toBe('The API failed with 500 Internal Server Error for GET /v1/apps?page=2. The server said: "It said "stop." and stopped".');
  });
});

describe('errorDetail', () => {
  it('reads the usual error shapes, the most specific member first', () => {
    const detail = (body: unknown) => errorDetail(JSON.stringify(body), 'application/json');
    expect(detail({ title: 'Forbidden' })).toBe('"Forbidden"');
    // OAuth: the description says more than the error's code.
    expect(detail({ error: 'invalid_token', error_description: 'The token expired' })).toBe('"The token expired"');
    // Hydra (API Platform): likewise.
    expect(detail({ 'hydra:title': 'An error occurred', 'hydra:description': 'Not allowed' })).toBe('"Not allowed"');
    expect(detail({ '@type': 'hydra:Error', 'hydra:title': 'An error occurred' })).toBe('"An error occurred"');
  });

  it('skips a blank member, and a nested one that says nothing, for the next that does', () => {
    const detail = (body: unknown) => errorDetail(JSON.stringify(body), 'application/json');
    expect(detail({ detail: '  ', title: 'Gone' })).toBe('"Gone"');
    expect(detail({ detail: { code: 7 }, title: 'Gone' })).toBe('"Gone"');
  });

  it('JSON that is not an object says nothing', () => {
    for (const text of ['null', '"database down"', '42', '["database down"]']) expect(errorDetail(text, 'application/json'), text).toBeUndefined();
  });
});

/** A network failure of GET https://api.example.invalid/v1/apps, no proxy, not timed out. */
const failed = (err: unknown, over: Partial<NetworkContext> = {}) =>
  networkError(err, { url: new URL('https://api.example.invalid/v1/apps'), timeoutMs: 30_000, timedOut: false, midResponse: false, ...over });

/** An error as undici and Node make them: a message, a code, a cause. */
const coded = (code: string | undefined, message = 'fetch failed', cause?: unknown): Error =>
  Object.assign(new Error(message, cause === undefined ? undefined : { cause }), code === undefined ? {} : { code });

const PROXY = { label: 'proxy.invalid:3128', variable: 'https_proxy' };
const HOST = 'api.example.invalid:443';

describe('networkError', () => {
  it('a proxy that asks for credentials (407) names the variable to fix, or HTTPS_PROXY when none is known', () => {
    const tunnel = new Error('Proxy response (407) !== 200 when HTTP Tunneling');
    const through = failed(tunnel, { proxy: PROXY });
    expect(through).toBeInstanceOf(NetworkError);
    expect(through.message).toBe(`The proxy proxy.invalid:3128 (https_proxy) asks for credentials (407): it would not open a tunnel to ${HOST}.`);
    expect(through.hint).toBe('Check the user name and password in https_proxy (http://user:password@host:port, special characters percent-encoded).');
    const unnamed = failed(tunnel);
    expect(unnamed.message).toBe(`The proxy asks for credentials (407): it would not open a tunnel to ${HOST}.`);
    expect(unnamed.hint).toBe('Check the user name and password in HTTPS_PROXY (http://user:password@host:port, special characters percent-encoded).');
  });

  it('a proxy that answers CONNECT with another status refused the tunnel: check it, or go around it', () => {
    const err = failed(new Error('Proxy response (502) !== 200 when HTTP Tunneling'));
    expect(err.message).toBe(`The proxy refused to connect to ${HOST} (it answered 502).`);
    expect(err.hint).toBe('Check HTTPS_PROXY / HTTP_PROXY, or list the host in NO_PROXY to go without the proxy.');
    expect(err.dropped).toBe(false);
  });

  it('a proxy that closed the connection before the tunnel was open: dropped (a GET may be resent), the variable named', () => {
    const closed = coded(PROXY_RETRY_CODE, 'the proxy closed the connection');
    const through = failed(closed, { proxy: PROXY });
    expect(through.message).toBe(`The proxy proxy.invalid:3128 (https_proxy) closed the connection before the tunnel to ${HOST} was open.`);
    expect(through.hint).toBe('Check the proxy in https_proxy (and its credentials), or list the host in NO_PROXY to go without it.');
    expect(through.dropped).toBe(true);
    const unnamed = failed(closed);
    expect(unnamed.message).toBe(`The proxy closed the connection before the tunnel to ${HOST} was open.`);
    expect(unnamed.hint).toBe('Check the proxy in HTTPS_PROXY (and its credentials), or list the host in NO_PROXY to go without it.');
  });

  it('each of undici\'s and Node\'s timeouts is "no answer within" the timeout, even when hostctl\'s own timer did not fire', () => {
    const timeouts = ['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT'].map((code) => coded(code));
    const named = Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' });
    for (const err of [...timeouts, named, coded(undefined, 'fetch failed', named)]) {
      const out = failed(err, { timeoutMs: 2_500 });
      expect(out.message, err.message).toBe(`No answer from ${HOST} within 2.5s.`);
      expect(out.hint).toBe('Raise --timeout or try later.');
    }
  });

  it('a failed DNS lookup names the host, and where its base URL came from', () => {
    const err = failed(coded('ENOTFOUND', 'getaddrinfo ENOTFOUND api.example.invalid'), { baseUrlFrom: 'profile "work"' });
    expect(err.message).toBe('Could not find the host api.example.invalid: the DNS lookup failed.');
    expect(err.hint).toBe('Check the host name in the base URL (from profile "work") and your network connection.');
    expect(failed(coded('ENOTFOUND')).hint).toBe('Check the host name in the base URL (from --base-url, HOSTCTL_BASE_URL or the profile) and your network connection.');
  });

  it('a DNS server that did not answer (EAI_AGAIN) is a network problem, not a wrong name', () => {
    const err = failed(coded('EAI_AGAIN', 'getaddrinfo EAI_AGAIN api.example.invalid'));
    expect(err.message).toBe('Could not look up the host api.example.invalid: the DNS server did not answer.');
    expect(err.hint).toBe('Check your network connection and try again.');
  });

  it('a certificate not accepted names the TLS code found in the chain, and the way to trust an inspecting proxy', () => {
    const err = failed(coded('UND_ERR_SOCKET', 'other side closed', coded('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames")));
    expect(err.message).toBe(`Could not make a secure connection to ${HOST} (ERR_TLS_CERT_ALTNAME_INVALID): the server's TLS certificate was not accepted.`);
    expect(err.hint).toBe('Check the base URL; behind a proxy that inspects TLS, set NODE_EXTRA_CA_CERTS to its CA certificate file.');
  });

  it('a TLS failure is known by its code\'s family: EPROTO is one, the system\'s EPROTONOSUPPORT and EPROTOTYPE are not', () => {
    expect(failed(coded('EPROTO', 'write EPROTO')).message).toBe(`Could not make a secure connection to ${HOST} (EPROTO): the server's TLS certificate was not accepted.`);
    for (const code of ['EPROTONOSUPPORT', 'EPROTOTYPE']) {
      expect(failed(coded(code, `socket ${code}`)).message, code).toBe(`Could not talk to ${HOST}: socket ${code}.`);
    }
  });

  it('every code of Node\'s certificate checks is a certificate not accepted, not "could not talk to"', () => {
    // Those Node names after OpenSSL's X509_V_ERR_* (X509ErrorCode in its crypto_common.cc) that begin with none of the usual prefixes.
    for (const code of ['INVALID_CA', 'PATH_LENGTH_EXCEEDED', 'INVALID_PURPOSE', 'CRL_HAS_EXPIRED', 'CRL_NOT_YET_VALID', 'CRL_SIGNATURE_FAILURE', 'ERROR_IN_CERT_NOT_BEFORE_FIELD', 'ERROR_IN_CERT_NOT_AFTER_FIELD', 'ERROR_IN_CRL_LAST_UPDATE_FIELD', 'ERROR_IN_CRL_NEXT_UPDATE_FIELD']) {
      const err = failed(coded(code, 'certificate check failed'));
      expect(err.message, code).toBe(`Could not make a secure connection to ${HOST} (${code}): the server's TLS certificate was not accepted.`);
      expect(err.hint).toBe('Check the base URL; behind a proxy that inspects TLS, set NODE_EXTRA_CA_CERTS to its CA certificate file.');
    }
  });

  it('a connection closed before any answer is dropped (a GET may be resent); one that broke off mid-response is not', () => {
    for (const code of ['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNABORTED']) {
      const before = failed(coded(code, `${code} on the socket`));
      expect(before.message, code).toBe(`The connection to ${HOST} was closed before the server answered.`);
      expect(before.hint).toBe('Try again; if it keeps happening, check the server or any proxy in between.');
      expect(before.dropped).toBe(true);
      const during = failed(coded(code, `${code} on the socket`), { midResponse: true });
      expect(during.message, code).toBe(`The connection to ${HOST} broke off before the whole response had arrived.`);
      expect(during.dropped).toBe(false);
    }
  });

  it('no route to the host, however the system says it', () => {
    for (const code of ['EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EHOSTDOWN']) {
      const err = failed(coded(code, `connect ${code} 192.0.2.1:443`));
      expect(err.message, code).toBe(`Could not reach ${HOST}: no route to the host.`);
      expect(err.hint).toBe('Check your network connection, VPN or proxy settings (HTTPS_PROXY, NO_PROXY).');
    }
  });

  it('any other failure is told in its own words, one line, with where to look', () => {
    const err = failed(coded('UND_ERR_INFO', 'invalid\nheader'));
    expect(err.message).toBe(`Could not talk to ${HOST}: invalid header.`);
    expect(err.hint).toBe('Check --base-url and your network connection; run with --verbose for details.');
    // Something thrown that is not an Error is told as it is; an Error without a message by its name.
    expect(failed('socket hang up').message).toBe(`Could not talk to ${HOST}: socket hang up.`);
    expect(failed(new TypeError('')).message).toBe(`Could not talk to ${HOST}: TypeError.`);
  });

  it('a failure through a proxy adds the proxy to the next step, after the failure\'s own', () => {
    const reset = failed(coded('ECONNRESET', 'read ECONNRESET'), { proxy: PROXY });
    expect(reset.hint).toBe('Try again; if it keeps happening, check the server or any proxy in between. The request went through the proxy proxy.invalid:3128 (https_proxy); check it too.');
    const timedOut = failed(coded(undefined, 'aborted'), { proxy: PROXY, timedOut: true });
    expect(timedOut.message).toBe(`No answer from ${HOST} through the proxy proxy.invalid:3128 (https_proxy) within 30s.`);
    expect(timedOut.hint).toBe('Raise --timeout or try later. The request went through the proxy proxy.invalid:3128 (https_proxy); check it too.');
  });
});

describe('networkError: the codes of the cause chain', () => {
  it('finds the code in the causes and in an AggregateError\'s errors (both addresses of a host refused)', () => {
    expect(failed(coded(undefined, 'fetch failed', coded('ECONNREFUSED', 'connect ECONNREFUSED'))).message).toMatch(/^Could not connect to /);
    const both = new AggregateError([coded('EHOSTUNREACH', 'connect EHOSTUNREACH ::1'), coded('EHOSTUNREACH', 'connect EHOSTUNREACH 127.0.0.1')], 'all failed');
    expect(failed(both).message).toBe(`Could not reach ${HOST}: no route to the host.`);
  });

  it('looks six levels deep and no further', () => {
    const chain = (depth: number): Error => (depth === 0 ? coded('EHOSTUNREACH', 'connect EHOSTUNREACH') : coded(undefined, `level ${depth}`, chain(depth - 1)));
    expect(failed(chain(5)).message).toBe(`Could not reach ${HOST}: no route to the host.`);
    expect(failed(chain(6)).message).toBe(`Could not talk to ${HOST}: level 6.`);
  });

  it('ends on a cause chain that comes round to itself, and on causes that are not errors', () => {
    const loop = coded(undefined, 'loop');
    Object.assign(loop, { cause: loop });
    expect(failed(loop).message).toBe(`Could not talk to ${HOST}: loop.`);
    const ring = new AggregateError([], 'ring');
    ring.errors.push(ring);
    expect(failed(ring).message).toBe(`Could not talk to ${HOST}: ring.`);
    expect(failed(coded(undefined, 'odd', null)).message).toBe(`Could not talk to ${HOST}: odd.`);
    expect(failed(new AggregateError([null, 'text', 7], 'odd')).message).toBe(`Could not talk to ${HOST}: odd.`);
  });

  it('the cause kept is the first code found and the message, and nothing of an error\'s name', () => {
    const cause = (err: unknown, over: Partial<NetworkContext> = {}) => (failed(err, over).cause as Error).message;
    expect(cause(coded(undefined, 'fetch failed', coded('ECONNREFUSED', 'connect ECONNREFUSED')))).toBe('ECONNREFUSED: fetch failed');
    expect(cause(new TypeError('fetch failed'))).toBe('fetch failed');
    expect(cause(coded(undefined, 'fetch failed', 'socket hang up'))).toBe('fetch failed');
    // An abort (hostctl's own timer) is named as such.
    expect(cause(Object.assign(new Error('This operation was aborted'), { name: 'AbortError' }), { timedOut: true })).toBe('AbortError: This operation was aborted');
  });
});

describe('tooDeepError', () => {
  it('JSON nested past the limit is the server\'s fault (exit 1, the status kept), reported to its operator', () => {
    const err = tooDeepError('GET /v1/apps', 200);
    expect(seen(err)).toEqual({
      type: 'ApiError',
      message: 'The API sent JSON nested more than 512 levels deep for GET /v1/apps; hostctl refuses such documents.',
      hint: 'The server is at fault: no API answer nests that deeply. Report it to the API operator.',
      status: 200,
    });
  });
});

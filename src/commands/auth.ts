// `hostctl auth login|status|logout|token`. The token is printed by `auth token` only;
// every other message shows `…` and its last four characters at most.

import type { Context } from '../context.js';
import { AuthError, HostctlError, InterruptedError, StopHere, UsageError } from '../errors.js';
import type { Token, TokenSource } from '../auth/token.js';
import { checkProfileName, type Storage } from '../config/config.js';
import type { RejectedMark } from '../config/state.js';
import type { IO } from '../io.js';
import { PROBE_PATH } from '../resources.js';
import { command, withContext, type HostctlCommand, type OptionsOf } from './define.js';

export function authCommand(): HostctlCommand {
  const auth = command('auth')
    .description('Log in, check and remove the stored token')
    .examples(['hostctl auth login --base-url https://api.example.com/v1', 'hostctl auth status --check', 'hostctl auth logout'])
    .seeAlso(['environment', 'exit-codes']);
  auth.addCommand(loginDefinition().action(withContext(async (ctx, _args, opts) => loginRun(ctx, opts))));
  auth.addCommand(statusDefinition().action(withContext(async (ctx, _args, opts) => statusRun(ctx, opts))));
  auth.addCommand(
    command('logout')
      .description("Remove the profile's stored token")
      .examples(['hostctl auth logout', 'hostctl --profile staging auth logout'])
      .seeAlso(['environment'])
      .action(withContext(async (ctx) => logoutRun(ctx))),
  );
  auth.addCommand(
    command('token')
      .description('Print the token to stdout (for piping)')
      .examples(['hostctl auth token | pbcopy', 'curl -H "Authorization: Bearer $(hostctl auth token)" "$(hostctl config get profiles.default.baseUrl)/apps"'])
      .seeAlso(['environment'])
      .action(withContext(async (ctx) => tokenRun(ctx))),
  );
  return auth;
}

function loginDefinition() {
  return command('login')
    .description('Check a token with one request, then store it in the OS keychain')
    .examples([
      'hostctl auth login --base-url https://api.example.com/v1',
      'hostctl auth login --with-token < token.txt',
      'hostctl --profile staging auth login --base-url https://staging.example.com/v1',
    ])
    .seeAlso(['environment', 'exit-codes'])
    .option('--with-token', 'read the token from stdin (for CI)')
    .option('--insecure-storage', 'store the token in a 0600 file instead of the keychain');
}

export type LoginOptions = OptionsOf<typeof loginDefinition>;

function statusDefinition() {
  return command('status')
    .description('Show the profile, base URL, token source and …last4 (no request unless --check)')
    .examples(['hostctl auth status', 'hostctl auth status --check', 'hostctl --profile staging auth status --json'])
    .seeAlso(['environment', 'exit-codes'])
    .option('--check', 'send one request to check the token');
}

/** Bearer tokens are visible ASCII (RFC 6750); anything else is a paste accident. */
const TOKEN_SHAPE = /^[\x21-\x7e]+$/;
const MAX_TOKEN_LENGTH = 4096;

function checkTokenShape(token: string, from: string): string {
  if (!token) throw new UsageError(`No token was read from ${from}.`, 'Create a token in the dashboard (account menu, "API tokens") and paste it.');
  if (token.length > MAX_TOKEN_LENGTH || !TOKEN_SHAPE.test(token)) {
    // Never echo what was read: it may be a real token with a stray character.
    throw new UsageError(
      `What was read from ${from} (${token.length} characters) is not a token: it holds spaces, line breaks, control or non-ASCII characters.`,
      'Give the token alone, on one line.',
    );
  }
  return token;
}

async function readStdin(ctx: Context): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** The signals that end a process by default and that a person or a terminal sends. */
const PROMPT_SIGNALS: readonly NodeJS.Signals[] = ['SIGHUP', 'SIGINT', 'SIGQUIT', 'SIGTERM'];

/** Reads a line from the terminal with echo off (raw mode), for the token prompt. */
function promptHidden(io: IO, question: string): Promise<string> {
  const stdin = io.stdin;
  // A signal from outside (a closed terminal's SIGHUP, kill -QUIT, -TERM) would end the
  // process with the terminal still raw: no echo in the shell after. The terminal is put
  // back first, then the signal is raised again, to end the process as it would have.
  // Listened for before raw mode: a signal sent on seeing the prompt finds it in place.
  const onSignal = (signal: NodeJS.Signals) => {
    stdin.setRawMode?.(false);
    for (const s of PROMPT_SIGNALS) process.off(s, onSignal);
    process.kill(process.pid, signal);
  };
  for (const s of PROMPT_SIGNALS) process.on(s, onSignal);
  // Echo goes off before the prompt appears: whatever is typed (or pasted) after seeing
  // the prompt must never reach the screen.
  stdin.setRawMode?.(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  io.stderr.write(question);
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (err?: Error) => {
      for (const s of PROMPT_SIGNALS) process.off(s, onSignal);
      stdin.off('data', onData);
      stdin.setRawMode?.(false);
      stdin.pause();
      io.stderr.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return finish();
        // Raw mode turns Ctrl-C into a character: it ends the run as the signal would (130).
        if (ch === '\u0003') return finish(new InterruptedError('Login interrupted; nothing was stored.'));
        if (ch === '\u0004' && value === '') return finish(new HostctlError('Login cancelled; nothing was stored.'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else if (ch === '\u0015') value = '';
        else if (ch >= ' ') value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

async function readToken(ctx: Context, o: LoginOptions): Promise<string> {
  if (o.withToken) return checkTokenShape((await readStdin(ctx)).trim(), 'stdin');
  if (!ctx.io.stdinIsTTY || !ctx.io.stderrIsTTY) {
    throw new UsageError(
      'No terminal to prompt for the token on.',
      'Pipe it in with --with-token, e.g. "hostctl auth login --with-token < token.txt", or set HOSTCTL_TOKEN for each run.',
    );
  }
  return checkTokenShape((await promptHidden(ctx.io, 'Paste your API token (input is hidden): ')).trim(), 'the prompt');
}

/** One request that needs the token; throws AuthError on 401 (the client marks the token). */
async function checkToken(ctx: Context, token: Token, baseUrl: URL): Promise<void> {
  const client = await ctx.httpWith(token, { cache: false });
  try {
    // Any 2xx is not enough: a web server's welcome page at the base URL would pass. The
    // answer must be the API's JSON, or nothing is stored (json() throws otherwise).
    (await client.request({ path: PROBE_PATH })).json();
  } catch (err) {
    if (err instanceof AuthError) {
      const { newTokenAdvice } = await import('../auth/advice.js');
      throw new AuthError(
        `The API at ${baseUrl.host} rejected this token, so nothing was stored.`,
        ctx.state().rejected(token.fingerprint)?.sandbox
          ? newTokenAdvice(true)
          : 'Check that you copied the whole token and that it was not deleted in the dashboard (account menu, "API tokens"); create a new one if needed.',
        { cause: err },
      );
    }
    throw err;
  } finally {
    await client.close();
  }
}

const NO_KEYCHAIN = 'No OS keychain is reachable, so the token was not stored (nothing was written).';

async function rejectedError(mark: RejectedMark): Promise<AuthError> {
  const { newTokenAdvice } = await import('../auth/advice.js');
  return new AuthError(
    `The API rejected this token on ${new Date(mark.at).toISOString()}; hostctl will not send it again, because retrying a rejected token locks out your IP address. Nothing was stored.`,
    mark.sandbox ? newTokenAdvice(true) : 'Create a new token in the dashboard (account menu, "API tokens") and run "hostctl auth login" with it.',
  );
}

async function loginRun(ctx: Context, o: LoginOptions): Promise<void> {
  const [{ makeToken, preview, storageLabel }, { updateConfig }] = await Promise.all([import('../auth/token.js'), import('../config/store.js')]);
  const profile = checkProfileName(ctx.profileName());
  const baseUrl = ctx.baseUrl();
  const storage: Storage = o.insecureStorage ? 'file' : 'keychain';
  const previous = ctx.profile()?.storage;

  const keychain = storage === 'keychain' ? await import('../auth/keychain.js') : undefined;
  if (keychain) {
    // Find out before asking for the token or spending a request that it cannot be kept.
    try {
      await keychain.readKeychain(profile);
    } catch (err) {
      if (err instanceof keychain.KeychainUnavailable) throw keychain.keychainUnavailableError(err, NO_KEYCHAIN);
      throw err;
    }
  }

  const value = await readToken(ctx, o);
  ctx.io.addSecret(value);
  const token = makeToken(value, storage);
  const mark = ctx.state().rejected(token.fingerprint);
  if (mark) throw await rejectedError(mark);

  await checkToken(ctx, token, baseUrl);

  const files = await import('../auth/file-store.js');
  let where: string;
  if (keychain) {
    try {
      await keychain.writeKeychain(profile, value);
    } catch (err) {
      if (err instanceof keychain.KeychainUnavailable) throw keychain.keychainUnavailableError(err, NO_KEYCHAIN);
      throw err;
    }
    // A token stored earlier with --insecure-storage must not stay behind in clear text.
    files.deleteTokenFile(profile, ctx.env);
    where = storageLabel('keychain', profile, ctx.env);
  } else {
    const path = files.writeTokenFile(profile, value, ctx.env);
    if (previous === 'keychain') {
      const { deleteKeychain } = await import('../auth/keychain.js');
      await deleteKeychain(profile).catch(() => false);
    }
    where = `the file ${path}`;
  }

  try {
    await updateConfig(ctx.env, (conf) => {
      conf.set(`profiles.${profile}.baseUrl`, baseUrl.href.replace(/\/$/, ''));
      conf.set(`profiles.${profile}.storage`, storage);
      conf.set(`profiles.${profile}.storedAt`, new Date().toISOString());
    });
  } catch (err) {
    // A login that failed leaves no clear-text token behind that no profile points at.
    if (storage === 'file' && previous !== 'file') files.deleteTokenFile(profile, ctx.env);
    throw err;
  }
  ctx.state().clearRejected(token.fingerprint);
  ctx.reloadConfig();

  ctx.io.note(`Logged in to ${baseUrl.href.replace(/\/$/, '')} as profile "${profile}": token ${preview(value)} checked and stored in ${where}.`);
  if (storage === 'file') {
    ctx.io.warn(
      `the token is stored in clear text (mode 0600) because of --insecure-storage; anyone who can read your files as you can read it. hostctl will warn at every use.`,
    );
  }
  if (ctx.env.HOSTCTL_TOKEN?.trim()) {
    ctx.io.warn('HOSTCTL_TOKEN is set in this environment; it still wins over the stored token. Unset it to use the stored one.');
  }
  const usual = ctx.env.HOSTCTL_PROFILE || ctx.config().defaultProfile || 'default';
  if (ctx.opts.profile && profile !== usual) {
    ctx.io.note(`To use it: hostctl --profile ${profile} …, HOSTCTL_PROFILE=${profile}, or "hostctl config set defaultProfile ${profile}".`);
  }
}

interface StatusReport {
  profile: string;
  profileFrom: string;
  baseUrl: string | null;
  baseUrlFrom: string | null;
  tokenSource: TokenSource | null;
  token: string | null;
  storage: Storage | null;
  storedAt: string | null;
  rejected: boolean;
  rejectedAt: string | null;
  check?: 'accepted' | 'rejected' | 'failed' | 'skipped';
}

function profileOrigin(ctx: Context): string {
  if (ctx.opts.profile) return '--profile';
  if (ctx.env.HOSTCTL_PROFILE) return 'HOSTCTL_PROFILE';
  return ctx.config().defaultProfile ? 'defaultProfile in config' : 'default';
}

async function statusRun(ctx: Context, o: OptionsOf<typeof statusDefinition>): Promise<void> {
  const [{ dataPrinter }, { preview, storageLabel }] = await Promise.all([import('../output/format.js'), import('../auth/token.js')]);
  const printer = await dataPrinter(ctx);
  const profile = ctx.profileName();
  const prof = ctx.profile();
  const src = ctx.baseUrlSource();
  let failure: unknown;
  let token: Token | undefined;
  /** Requests the check sent (a resend after a dropped connection counts). */
  let sent = 0;
  try {
    token = await ctx.resolveToken({ alwaysWarn: true });
  } catch (err) {
    failure = err;
  }
  const mark = token ? ctx.state().rejected(token.fingerprint) : undefined;
  const report: StatusReport = {
    profile,
    profileFrom: profileOrigin(ctx),
    baseUrl: src?.url ?? null,
    baseUrlFrom: src?.origin ?? null,
    tokenSource: token?.source ?? null,
    token: token ? preview(token.value) : null,
    storage: prof?.storage ?? null,
    storedAt: prof?.storedAt ?? null,
    rejected: mark !== undefined,
    rejectedAt: mark ? new Date(mark.at).toISOString() : null,
  };

  if (o.check && token && !failure) {
    try {
      const http = await ctx.http();
      // Fresh: a check answered from the cache would pass a token revoked since.
      (await http.request({ path: PROBE_PATH, fresh: true })).json();
      report.check = 'accepted';
      sent = http.requestCount;
    } catch (err) {
      if (err instanceof StopHere) throw err;
      failure = err;
      report.check = err instanceof AuthError ? 'rejected' : 'failed';
      const after = ctx.state().rejected(token.fingerprint);
      report.rejected = after !== undefined;
      report.rejectedAt = after ? new Date(after.at).toISOString() : null;
    }
  } else if (o.check) {
    report.check = 'skipped';
  }

  if (printer) {
    await printer.add([report]);
    await printer.end('single');
  } else {
    ctx.io.out(formatStatus(report, sent, (source) => storageLabel(source, report.profile, ctx.env)));
  }
  if (failure) throw failure;
  // Scripts check the token with the exit code: one marked rejected is not usable.
  const marked = token ? ctx.state().rejected(token.fingerprint) : undefined;
  if (marked) {
    const { newTokenAdvice } = await import('../auth/advice.js');
    throw new AuthError(`The token of profile ${profile} was rejected by the API on ${new Date(marked.at).toISOString()}; hostctl will not send it again.`, newTokenAdvice(marked.sandbox === true));
  }
}

function formatStatus(r: StatusReport, sent: number, storageLabel: (source: TokenSource) => string): string {
  const lines: [string, string][] = [];
  lines.push(['Profile', `${r.profile} (${r.profileFrom})`]);
  lines.push(['Base URL', r.baseUrl ? `${r.baseUrl} (from ${r.baseUrlFrom})` : 'not set']);
  if (r.tokenSource && r.token) {
    let from = storageLabel(r.tokenSource);
    if (r.tokenSource === 'env' && r.storage) from += ` (overrides the token stored in the ${r.storage === 'file' ? 'file' : 'keychain'})`;
    lines.push(['Token', `${r.token} from ${from}`]);
  } else {
    lines.push(['Token', 'none']);
  }
  if (r.storedAt) lines.push(['Stored', r.storedAt]);
  if (r.tokenSource) {
    lines.push(['Rejected', r.rejectedAt ? `yes, on ${r.rejectedAt}: hostctl will not send this token again` : 'no']);
  }
  if (r.check === 'accepted') lines.push(['Check', `accepted by the API (${sent} ${sent === 1 ? 'request' : 'requests'})`]);
  else if (r.check === 'rejected') lines.push(['Check', 'rejected']);
  else if (r.check === 'failed') lines.push(['Check', 'failed (see below)']);
  else if (r.check === 'skipped') lines.push(['Check', 'skipped: no token']);
  const width = Math.max(...lines.map(([k]) => k.length)) + 2;
  return lines.map(([k, v]) => `${`${k}:`.padEnd(width)}${v}\n`).join('');
}

async function logoutRun(ctx: Context): Promise<void> {
  const [{ storageLabel }, { pruneProfile, updateConfig }] = await Promise.all([import('../auth/token.js'), import('../config/store.js')]);
  const profile = checkProfileName(ctx.profileName());
  const prof = ctx.profile();
  const removed: string[] = [];

  if (prof?.storage !== 'file') {
    const keychain = await import('../auth/keychain.js');
    try {
      if (await keychain.deleteKeychain(profile)) removed.push(storageLabel('keychain', profile, ctx.env));
    } catch (err) {
      if (!(err instanceof keychain.KeychainUnavailable)) throw err;
      // Only an error when the config says the token is there; else nothing was stored.
      if (prof?.storage === 'keychain') {
        throw keychain.keychainUnavailableError(
          err,
          `Cannot remove the token of profile ${profile} from the OS keychain; nothing was changed.`,
          `Run "hostctl auth logout" again where the keychain is reachable (on Linux, a D-Bus session with a Secret Service); the entry is service hostctl, account ${profile}. Until then, HOSTCTL_TOKEN overrides it.`,
        );
      }
    }
  }
  const files = await import('../auth/file-store.js');
  const path = files.tokenFile(profile, ctx.env);
  if (files.deleteTokenFile(profile, ctx.env)) removed.push(`the file ${path}`);

  if (prof?.storage !== undefined || prof?.storedAt !== undefined) {
    await updateConfig(ctx.env, (conf) => {
      conf.delete(`profiles.${profile}.storage`);
      conf.delete(`profiles.${profile}.storedAt`);
      pruneProfile(conf, profile);
    });
  }

  if (removed.length > 0) ctx.io.note(`Logged out of profile "${profile}": removed the token from ${removed.join(' and ')}.`);
  else ctx.io.note(`No stored token for profile "${profile}"; nothing to remove.`);
  if (ctx.env.HOSTCTL_TOKEN?.trim()) ctx.io.note('HOSTCTL_TOKEN is still set in this environment and will still be used.');
}

async function tokenRun(ctx: Context): Promise<void> {
  const token = await ctx.resolveToken();
  // The one deliberate exception to the sink: printing the token is this command's job.
  ctx.io.rawOut(`${token.value}\n`);
}

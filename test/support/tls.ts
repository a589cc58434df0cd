// A certificate of the test's own, made with `openssl` (Node cannot make one): a
// self-signed certificate for loopback names, which a test trusts the way users are told
// to trust a private CA (NODE_EXTRA_CA_CERTS, src/http/errors.ts's hint), or does not.
// Where openssl is missing the tests skip with the reason, except under CI.

import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { underCI } from './ci.js';

/** Why no certificate can be made here, or undefined. Under CI nothing is a reason. */
export function opensslUnavailable(): string | undefined {
  if (underCI()) return undefined;
  const r = spawnSync('openssl', ['version'], { encoding: 'utf8' });
  return r.status === 0 ? undefined : 'openssl is not installed (Debian: apt-get install openssl)';
}

export interface TestCert {
  /** PEM files: give `certFile` to NODE_EXTRA_CA_CERTS to trust it. */
  certFile: string;
  cert: string;
  key: string;
}

/** A self-signed certificate (a P-256 key, a day long) in `dir`, for these DNS names and IP addresses. */
export function selfSignedCert(dir: string, names: { dns?: string[]; ip?: string[] }, file = 'server'): TestCert {
  const certFile = join(dir, `${file}.crt`);
  const keyFile = join(dir, `${file}.key`);
  const san = [...(names.dns ?? []).map((n) => `DNS:${n}`), ...(names.ip ?? []).map((n) => `IP:${n}`)].join(',');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', `/CN=hostctl test ${file}`, '-addext', `subjectAltName=${san}`],
    { stdio: 'ignore' },
  );
  return { certFile, cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

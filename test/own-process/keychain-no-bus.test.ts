// src/auth/keychain.ts when the D-Bus session named does not answer: every operation is
// KeychainUnavailable, whose reason is the platform's own words on one line (the addon's
// message ends with a line break). The addon reads DBUS_SESSION_BUS_ADDRESS from the
// process, so this file runs in a process of its own (the `own-process` project).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteKeychain, KeychainUnavailable, readKeychain, writeKeychain } from '../../src/auth/keychain.js';

const saved = process.env.DBUS_SESSION_BUS_ADDRESS;
beforeAll(() => {
  process.env.DBUS_SESSION_BUS_ADDRESS = 'unix:path=/nonexistent/hostctl-test-bus';
});
afterAll(() => {
  if (saved === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
  else process.env.DBUS_SESSION_BUS_ADDRESS = saved;
});

describe('a D-Bus session that does not answer', () => {
  it('reading, storing and removing are each KeychainUnavailable, with the platform\'s reason on one line', async () => {
    for (const op of [() => readKeychain('kn-1'), () => writeKeychain('kn-1', 'tok-x'), () => deleteKeychain('kn-1')]) {
      const err: unknown = await op().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KeychainUnavailable);
      const { reason, message } = err as KeychainUnavailable;
      expect(reason).toMatch(/^Platform failure: DBus error: .*\/nonexistent\/hostctl-test-bus.*[a-z]$/);
      expect(reason).not.toContain('\n');
      expect(message).toBe(`The OS keychain is not available: ${reason}`);
    }
  });
});

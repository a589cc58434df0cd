// A platform without user IDs (Windows: no process.getuid), for code that asks for one.

/** Runs `fn` with process.getuid gone, and puts it back however `fn` ends. */
export function withoutUserIds<T>(fn: () => T): T {
  const own = Object.getOwnPropertyDescriptor(process, 'getuid');
  Object.defineProperty(process, 'getuid', { value: undefined, configurable: true, writable: true });
  try {
    return fn();
  } finally {
    if (own) Object.defineProperty(process, 'getuid', own);
  }
}

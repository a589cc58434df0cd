import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  // What the build defines, so that the in-process layer's main() is the built one's.
  define: { __HOSTCTL_VERSION__: JSON.stringify(pkg.version) },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: e2e files spawn servers and CLI processes, so keep the pool small.
    maxWorkers: 2,
    fileParallelism: true,
  },
});

import { defineConfig, type Plugin, type TestProjectInlineConfiguration } from 'vitest/config';
import base from './vitest.config.js';

// The configuration `npm run test:mutation` gives Stryker's vitest runner (stryker.config.mjs).
// It runs the in-process layers only: e2e runs the built dist/, which no mutant reaches.
//
// One setting differs from vitest.config.ts: the runner asks for worker threads, where
// process.umask() cannot be set (test/unit/config-atomic.test.ts sets it); a child process
// can. The projects keep isolate: false: each mutant run starts new workers, so a mutant in
// code that runs when a module loads is loaded afresh all the same.
const projects = (base.test?.projects ?? []).filter(
  (p): p is TestProjectInlineConfiguration => typeof p === 'object' && 'test' in p && p.test?.name !== 'e2e',
);

const forks: Plugin = {
  name: 'hostctl-stryker-forks',
  configureVitest({ project }) {
    project.config.pool = 'forks';
  },
};

export default defineConfig({
  ...base,
  plugins: [forks],
  test: {
    ...base.test,
    projects,
    reporters: ['default'],
  },
});

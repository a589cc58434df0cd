// A vitest reporter for CI (vitest.config.ts adds it when CI=true): a test that did not
// run is a failure there. Tests that need a missing system part (a Secret Service, a
// shell) may skip with a printed reason on a developer's machine, but in CI everything
// they need is installed, so a skip means the run proved less than it claims. Vitest
// itself counts a skip as a pass; this sets the exit code to 1 and names each one.

export default class NoSkipsReporter {
  onTestRunEnd(testModules, _errors, reason) {
    if (reason === 'interrupted') return;
    process.stderr.write(`ci: vitest ran on Node ${process.version} (${process.execPath})\n`);
    const skipped = [];
    for (const mod of testModules) {
      if (mod.state() === 'skipped' && [...mod.children.allTests()].length === 0) skipped.push(`${mod.relativeModuleId} (the whole file)`);
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'skipped' || state === 'pending') skipped.push(`${mod.relativeModuleId} > ${test.fullName}`);
      }
    }
    if (skipped.length === 0) return;
    process.stderr.write(`\nci: ${skipped.length} test${skipped.length === 1 ? '' : 's'} did not run, and under CI=true a skip is a failure:\n`);
    for (const line of skipped) process.stderr.write(`  ${line}\n`);
    process.exitCode = 1;
  }
}

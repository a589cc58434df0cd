// The order the files start in. Two workers run the files one after another, so the run
// lasts at least as long as its longest file plus whatever starts after it: the longest
// files start first. Vitest's own order runs one project after another (cli, e2e, …), so
// that the slowest e2e files would start half-way through. The last run's durations, where
// vitest kept them; on a fresh clone, the e2e files first (each starts processes and
// servers), then the larger files.

import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const RANK: Record<string, number> = { e2e: 0, 'own-process': 1, cli: 2, unit: 3 };

export class LongestFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const durationOf = (spec: TestSpecification): number | undefined =>
      this.ctx.cache.getFileTestResults(`${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId)}`)?.duration;
    const sizeOf = (spec: TestSpecification): number => {
      try {
        return statSync(spec.moduleId).size;
      } catch {
        return 0;
      }
    };
    const known = files.every((f) => durationOf(f) !== undefined);
    return Promise.resolve(
      [...files].sort((a, b) => {
        if (known) return durationOf(b)! - durationOf(a)!;
        const rank = (RANK[a.project.name] ?? 9) - (RANK[b.project.name] ?? 9);
        return rank !== 0 ? rank : sizeOf(b) - sizeOf(a);
      }),
    );
  }
}

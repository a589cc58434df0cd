// tsv: a list's rows are written as pages arrive; otherwise at the end, a single array
// as its rows.

import { keeping, rowsOf, type MakePrinter } from '../printer.js';
import { tsvWriter } from '../tsv.js';

export const tsvPrinter: MakePrinter = (job) => {
  if (job.opts.shape === 'list') {
    const rows = tsvWriter(job.opts.columns ?? [], job.fields);
    return {
      add: (items) => job.write(rows(items.map(job.prepare))),
      async end() {
        job.warnFields();
      },
    };
  }
  return keeping(job, (kept, shape) => job.write(tsvWriter(job.opts.columns ?? [], job.fields)(rowsOf(kept, shape))));
};

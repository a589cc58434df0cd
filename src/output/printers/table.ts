// table: every row measured before the first is drawn, so the objects are kept until
// end(); one object asked for on a terminal is the detail view instead.

import { NAME_FIELDS } from '../../resources.js';
import { isRecord } from '../../json/narrow.js';
import { keeping, onlyOne, rowsOf, type MakePrinter } from '../printer.js';
import { renderTable } from '../table.js';

export const tablePrinter: MakePrinter = (job) => {
  const { io, opts } = job;
  return keeping(job, async (kept, shape) => {
    const now = (opts.now ?? Date.now)();
    const one = onlyOne(kept, shape);
    if (io.stdoutIsTTY && isRecord(one)) {
      const { renderDetail } = await import('../detail.js');
      await job.write(renderDetail(one, { width: io.columns, color: io.color, now, names: opts.names, nameFields: NAME_FIELDS }));
      return;
    }
    const text = renderTable(rowsOf(kept, shape), {
      defaults: opts.columns ?? [],
      fields: job.fields,
      width: io.columns,
      color: io.color,
      plain: io.accessible,
      now,
      names: opts.names,
      nameFields: NAME_FIELDS,
      references: opts.references,
    });
    await job.write(text);
  });
};

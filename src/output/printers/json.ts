// json: a list streams as an array while pages arrive; otherwise the whole value is
// written at the end, one object as itself when one was asked for.

import { keeping, type MakePrinter, type PrintJob, type Printer } from '../printer.js';
import { stringifyJson } from '../json.js';

function streamedList(job: PrintJob): Printer {
  let started = false;
  return {
    async add(items) {
      let out = '';
      for (const item of items) {
        // Indented as stringifyJson(list, 2) would: JSON text has no raw newline in strings.
        out += `${started ? ',\n' : '[\n'}  ${stringifyJson(job.prepare(item), 2).replace(/\n/g, '\n  ')}`;
        started = true;
      }
      await job.write(out);
    },
    async end() {
      await job.write(started ? '\n]\n' : '[]\n');
      job.warnFields();
    },
  };
}

export const jsonPrinter: MakePrinter = (job) => {
  if (job.opts.shape === 'list') return streamedList(job);
  return keeping(job, async (kept, shape) => {
    const value = shape === 'single' && kept.length === 1 ? kept[0] : kept;
    await job.write(`${stringifyJson(value, 2)}\n`);
  });
};

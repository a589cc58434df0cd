// ndjson: one JSON text a line, written as pages arrive.

import type { MakePrinter } from '../printer.js';
import { stringifyJson } from '../json.js';

export const ndjsonPrinter: MakePrinter = (job) => ({
  async add(items) {
    let out = '';
    for (const item of items) out += `${stringifyJson(job.prepare(item))}\n`;
    await job.write(out);
  },
  async end() {
    job.warnFields();
  },
});

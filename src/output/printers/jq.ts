// --jq, in place of any format: its input is the JSON text --json would print (exact
// numbers), handed to jq's worker page by page; jq's output is written as it comes.

import type { PrintJob, Printer } from '../printer.js';
import { startJq } from '../jq.js';
import { stringifyJson } from '../json.js';
import { sanitize } from '../sanitize.js';

export async function jqPrinter(job: PrintJob, expression: string): Promise<Printer> {
  const { io } = job;
  const run = await startJq(expression);
  let count = 0;
  return {
    async add(items) {
      count += items.length;
      try {
        run.add(items.map((item) => stringifyJson(job.prepare(item))));
      } catch (err) {
        run.stop();
        throw err;
      }
    },
    async end(shape) {
      job.warnFields();
      // Raw strings, as jq -r; on a terminal nothing in them may act on it, so only whole
      // lines are cleaned (a batch may end inside an escape sequence).
      let partial = '';
      const clean = (text: string): string => {
        if (!io.stdoutIsTTY) return text;
        const whole = partial + text;
        const cut = whole.lastIndexOf('\n') + 1;
        partial = whole.slice(cut);
        return whole
          .slice(0, cut)
          .split('\n')
          .map((line) => line.split('\t').map((cell) => sanitize(cell)).join('\t'))
          .join('\n');
      };
      const gone = () => io.stdout.destroyed || io.stdout.writableEnded;
      await run.finish(shape === 'single' && count === 1, async (text) => {
        await job.write(clean(text));
        return !gone();
      });
      if (partial) await job.write(partial.split('\t').map((cell) => sanitize(cell)).join('\t'));
    },
  };
}

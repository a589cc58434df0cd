// `--jq EXPR`: jq itself (jqlang/jq's C source compiled to WebAssembly by emscripten, the
// jq-wasm package), not a look-alike, so that an expression means here what it means in
// jq. Loaded only when --jq is given: it is 1.3 MB.
//
// jq runs in a worker thread, so that it can be bounded and stopped: an expression may
// never end (`repeat(1)`), and only another thread can stop WebAssembly that is running.
// The package's own wrapper is not used: it collects all of jq's output before returning
// any, and copies its whole input and output buffers for every byte (quadratic; 100,000
// objects never finished). The worker runs the package's emscripten module with jq's
// three standard streams taken over at the WebAssembly imports (`_fd_read`, `_fd_write`),
// so the input is read from the pages as sent, and the output is handed to the main thread
// in batches, each written to stdout (waiting for 'drain') before jq may go on.
//
// Bounds (docs/output.md): jq's memory is its engine's own ceiling, 256 MiB (the most the
// package's build lets its heap grow to); time is 60 s of jq computing, not counting the
// time it waits for the reader of its output.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { HostctlError, UsageError } from '../errors.js';
import { systemClock, type Clock } from '../runtime.js';
import { jqWorker, type FromWorker, type ToWorker, type WorkerData } from './jq-worker.js';

/** The engine's file in dist/chunks/, set by scripts/build.mjs; unset when run from src/. */
declare const __HOSTCTL_JQ_ENGINE__: string | undefined;

/**
 * The time jq may compute: about 20 times what `group_by(.name)` over the biggest input we
 * measured (100,000 apps, 26 MB of JSON) takes, reading the input included (about 3 s of
 * CPU), so that real work never meets it, and a loop that never ends stops within a minute.
 */
const JQ_TIME_MS = 60_000;
/** The engine's heap ceiling (jq-wasm's build: 256 MiB), which jq's input must also fit. */
const JQ_MEMORY_BYTES = 256 * 1024 * 1024;
/** Output is handed over once this much is waiting, or FLUSH_MS after the last hand-over. */
const FLUSH_BYTES = 64 * 1024;
const FLUSH_MS = 50;

export interface JqBounds {
  /** The time jq may compute, in ms (tests pass a short one). */
  timeMs: number;
  /**
   * What jq's computing is timed on. The real clock, also in the in-process layer: the
   * bound is on jq's real work, which a virtual clock does not see (unit tests pass one
   * that does).
   */
  clock: Clock;
}

const WORKER_SOURCE = `const { parentPort, workerData } = require('node:worker_threads');\n(${jqWorker.toString()})(parentPort, workerData, require);`;

/** The engine's source and file: dist/chunks/ when built, else the package itself. */
function engine(): { text: string; file: string } {
  const file =
    typeof __HOSTCTL_JQ_ENGINE__ === 'string'
      ? `${dirname(fileURLToPath(import.meta.url))}/chunks/${__HOSTCTL_JQ_ENGINE__}`
      : createRequire(import.meta.url).resolve('jq-wasm/dist/build/jq.js');
  return { text: readFileSync(file, 'utf8'), file };
}

/** jq's message without the wrapper's lines: the first line, "jq: error: " dropped. */
function jqMessage(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.replace(/^jq: error(?::\s*)?/, '').trim();
}

function outOfMemory(): HostctlError {
  return new HostctlError(
    `--jq: jq ran out of memory: it has ${JQ_MEMORY_BYTES / 1024 / 1024} MiB here, for its input and its work.`,
    'Ask for less (--fields, --limit) or narrow the expression; or pipe --json into jq, which has no such bound.',
  );
}

function outOfTime(ms: number): HostctlError {
  return new HostctlError(
    `--jq: the expression was still running after ${ms / 1000} s; hostctl stopped it.`,
    'Check the expression for a loop that never ends; for work that takes longer, pipe --json into jq.',
  );
}

/** The next step after a run-time error of the expression. */
const RUN_HINT = 'The expression ran over the output as `--json` prints it; check it against that.';

export interface JqRun {
  /** The JSON texts of one page's objects, as --json prints them. */
  add(texts: readonly string[]): void;
  /**
   * Runs jq over everything added: one array, or the one object when `single`. Its output
   * is handed to `write` as it comes; `write` resolves to false once the reader has gone,
   * and jq is then stopped.
   */
  finish(single: boolean, write: (text: string) => Promise<boolean>): Promise<void>;
  /** Stops jq (the command failed before the end). */
  stop(): void;
}

/**
 * Starts jq on `expr` in a worker and compiles it: a syntax error is a usage error (exit 2)
 * here, before any request.
 */
export async function startJq(expr: string, bounds: Partial<JqBounds> = {}): Promise<JqRun> {
  const timeMs = bounds.timeMs ?? JQ_TIME_MS;
  const { text, file } = engine();
  const ack = new SharedArrayBuffer(4);
  const flag = new Int32Array(ack);
  const data: WorkerData = { engine: text, file, expr, ack, flushBytes: FLUSH_BYTES, flushMs: FLUSH_MS };
  // The worker's own JavaScript holds only the pages' text (in buffers, outside this bound)
  // and a batch of output; jq's heap is WebAssembly memory, bounded by the engine.
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: data, resourceLimits: { maxOldGenerationSizeMb: 128 }, stdout: true, stderr: true });
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    void worker.terminate();
  };

  // jq computes from when its engine is loaded, and again after each batch of output has
  // been written; the time it waits for the reader does not count.
  const time = bounds.clock ?? systemClock;
  let left = timeMs;
  let since: number | undefined;
  let timer: AbortController | undefined;
  let failed: ((err: Error) => void) | undefined;
  const clock = {
    start() {
      since = time.now();
      const own = (timer = new AbortController());
      time.sleep(left, own.signal).then(
        () => {
          if (own.signal.aborted) return;
          stop();
          failed?.(outOfTime(timeMs));
        },
        () => undefined,
      );
    },
    pause() {
      if (since === undefined) return;
      timer?.abort();
      left = Math.max(0, left - (time.now() - since));
      since = undefined;
    },
  };

  let received: (msg: FromWorker) => void = () => undefined;
  worker.on('message', (msg: FromWorker) => received(msg));
  worker.on('error', (err: Error & { code?: string }) => {
    stop();
    failed?.(err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? outOfMemory() : new HostctlError(`--jq: jq failed: ${err.message}`));
  });
  // jq's exit() returns to the worker (emscripten's callMain catches it); a thread that ends
  // on its own all the same must not leave the command waiting.
  worker.on('exit', (code) => {
    if (!stopped) failed?.(new HostctlError(`--jq: jq stopped unexpectedly (exit code ${code}).`));
  });

  const checked = await new Promise<FromWorker & { type: 'checked' }>((resolve, reject) => {
    failed = reject;
    // Loading the engine (compiling its WebAssembly) is not jq's work on the expression.
    received = (msg) => {
      if (msg.type === 'loaded') clock.start();
      else if (msg.type === 'checked') resolve(msg);
    };
  }).finally(() => {
    clock.pause();
    // Between here and finish() the command fetches; a command that fails meanwhile never
    // calls finish(), and an idle worker must not keep the process alive then.
    worker.unref();
  });
  if (checked.compileError !== undefined) {
    stop();
    const message = jqMessage(checked.compileError)
      .replace(/:$/, '')
      .replace(/\s*\(Unix shell quoting issues\?\)/, '');
    throw new UsageError(`--jq: ${message || 'the expression does not compile'}.`, "Check the expression; jq's manual: https://jqlang.org/manual/");
  }

  let inputChars = 0;
  let tooBig = false;
  const encoder = new TextEncoder();
  return {
    add(texts) {
      if (texts.length === 0 || tooBig) return;
      const page = texts.join(',');
      inputChars += page.length + 1;
      if (inputChars > JQ_MEMORY_BYTES) {
        // jq could not even hold the input: stop now rather than after the whole walk.
        tooBig = true;
        stop();
        throw outOfMemory();
      }
      // Encoded here and moved, not copied: the text never enters the worker's own heap,
      // whose bound (128 MB) is below the input's.
      const bytes = encoder.encode(page);
      worker.postMessage({ type: 'input', bytes } satisfies ToWorker, [bytes.buffer]);
    },
    finish(single, write) {
      if (tooBig) return Promise.reject(outOfMemory());
      // A batch may end inside a character: the decoder keeps its first bytes for the next.
      const decoder = new TextDecoder();
      worker.ref();
      return new Promise<void>((resolve, reject) => {
        failed = reject;
        received = (msg) => {
          if (msg.type === 'out') {
            clock.pause();
            void write(decoder.decode(msg.bytes, { stream: true })).then((more) => {
              if (!more) {
                stop();
                resolve();
                return;
              }
              Atomics.store(flag, 0, 1);
              Atomics.notify(flag, 0);
              clock.start();
            }, reject);
            return;
          }
          if (msg.type !== 'done') return;
          clock.pause();
          stop();
          const tail = decoder.decode();
          if (msg.outOfMemory && msg.status !== 0) reject(outOfMemory());
          else if (msg.status !== 0 && msg.stderr.trim() !== '') {
            reject(new HostctlError(`--jq: ${jqMessage(msg.stderr).replace(/\(at <stdin>:\d+\):\s*/, '')}`, RUN_HINT));
          } else if (msg.status !== 0) {
            // `"" | halt_error`: jq stops with an error status and says nothing; a failure all the same, as for jq.
            reject(new HostctlError(`--jq: the expression stopped jq with exit status ${msg.status} and no message (halt_error).`, RUN_HINT));
          } else if (tail) void write(tail).then(() => resolve(), reject);
          else resolve();
        };
        clock.start();
        worker.postMessage({ type: 'run', single } satisfies ToWorker);
      }).finally(() => worker.unref());
    },
    stop,
  };
}

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
import { Worker, type MessagePort } from 'node:worker_threads';
import { HostctlError, UsageError } from '../errors.js';

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
}

interface WorkerData {
  engine: string;
  file: string;
  expr: string;
  /** One Int32: the main thread sets it to 1 once it has written a batch. */
  ack: SharedArrayBuffer;
  flushBytes: number;
  flushMs: number;
}

type FromWorker =
  | { type: 'loaded' }
  | { type: 'checked'; compileError?: string }
  | { type: 'out'; bytes: Uint8Array }
  | { type: 'done'; status: number; stderr: string; outOfMemory: boolean };

type ToWorker = { type: 'input'; text: string } | { type: 'run'; single: boolean };

/**
 * The worker's side. It runs in the worker from its source text (Function.prototype.
 * toString), so it may use nothing from outside itself but its arguments and globals.
 */
function jqWorker(port: MessagePort, data: WorkerData, req: (id: string) => unknown): void {
  // emscripten prints its own lines ("Aborted()") with console.error: not for the user.
  console.error = () => undefined;
  let memory: WebAssembly.Memory | undefined;
  let outOfMemory = false;
  let streaming = false;
  let stdout: Uint8Array[] = [];
  let stdoutBytes = 0;
  let stderr: Uint8Array[] = [];
  let lastFlush = Date.now();
  const ack = new Int32Array(data.ack);
  const texts: Uint8Array[] = [];
  let input: Uint8Array[] = [];
  let inputAt = 0;
  let inputOffset = 0;
  const encoder = new TextEncoder();

  const flush = (): void => {
    if (stdoutBytes === 0) return;
    const bytes = new Uint8Array(stdoutBytes);
    let at = 0;
    for (const chunk of stdout) {
      bytes.set(chunk, at);
      at += chunk.length;
    }
    stdout = [];
    stdoutBytes = 0;
    port.postMessage({ type: 'out', bytes }, [bytes.buffer]);
    Atomics.wait(ack, 0, 0);
    Atomics.store(ack, 0, 0);
    lastFlush = Date.now();
  };

  type Io = (fd: number, iov: number, iovcnt: number, pnum: number) => number;
  const fdWrite =
    (original: Io): Io =>
    (fd, iov, iovcnt, pnum) => {
      if ((fd !== 1 && fd !== 2) || !memory) return original(fd, iov, iovcnt, pnum);
      const view = new DataView(memory.buffer);
      let written = 0;
      for (let i = 0; i < iovcnt; i++) {
        const ptr = view.getUint32(iov + i * 8, true);
        const len = view.getUint32(iov + i * 8 + 4, true);
        const bytes = new Uint8Array(memory.buffer, ptr, len).slice();
        if (fd === 2) stderr.push(bytes);
        else {
          stdout.push(bytes);
          stdoutBytes += len;
        }
        written += len;
      }
      view.setUint32(pnum, written, true);
      if (streaming && fd === 1 && (stdoutBytes >= data.flushBytes || Date.now() - lastFlush >= data.flushMs)) flush();
      return 0;
    };
  const fdRead =
    (original: Io): Io =>
    (fd, iov, iovcnt, pnum) => {
      if (fd !== 0 || !memory) return original(fd, iov, iovcnt, pnum);
      const view = new DataView(memory.buffer);
      let read = 0;
      for (let i = 0; i < iovcnt; i++) {
        const ptr = view.getUint32(iov + i * 8, true);
        let room = view.getUint32(iov + i * 8 + 4, true);
        let at = ptr;
        while (room > 0 && inputAt < input.length) {
          const chunk = input[inputAt] as Uint8Array;
          const n = Math.min(room, chunk.length - inputOffset);
          new Uint8Array(memory.buffer, at, n).set(chunk.subarray(inputOffset, inputOffset + n));
          at += n;
          room -= n;
          read += n;
          inputOffset += n;
          if (inputOffset === chunk.length) {
            // Read: let it go, jq holds its own copy.
            input[inputAt++] = new Uint8Array(0);
            inputOffset = 0;
          }
        }
      }
      view.setUint32(pnum, read, true);
      return 0;
    };

  const instantiate = WebAssembly.instantiate.bind(WebAssembly) as (bytes: BufferSource, imports: WebAssembly.Imports) => Promise<WebAssembly.WebAssemblyInstantiatedSource>;
  // Dedicated to jq: the only instantiation in this thread is the engine's.
  (WebAssembly as { instantiate: typeof instantiate }).instantiate = async (bytes, imports) => {
    const env = (imports.a ?? {}) as Record<string, unknown>;
    const found = new Set<string>();
    for (const [key, value] of Object.entries(env)) {
      if (typeof value !== 'function') continue;
      const fn = value as Io & ((size: number) => number);
      if (fn.name === '_fd_write') env[key] = fdWrite(fn);
      else if (fn.name === '_fd_read') env[key] = fdRead(fn);
      else if (fn.name === '_emscripten_resize_heap') {
        env[key] = (size: number) => {
          const grown = fn(size);
          if (!grown) outOfMemory = true;
          return grown;
        };
      } else continue;
      found.add(fn.name);
    }
    if (found.size !== 3) throw new Error(`jq's engine lacks ${['_fd_write', '_fd_read', '_emscripten_resize_heap'].filter((n) => !found.has(n)).join(', ')}`);
    const result = await instantiate(bytes, imports);
    memory = Object.values(result.instance.exports).find((v): v is WebAssembly.Memory => v instanceof WebAssembly.Memory);
    return result;
  };

  const mod: { exports: unknown } = { exports: {} };
  // The engine is CommonJS text (from the package, or its copy in dist/chunks/).
  new Function('module', 'exports', 'require', '__filename', '__dirname', data.engine)(mod, mod.exports, req, data.file, data.file.replace(/[\\/][^\\/]*$/, ''));
  const factory = mod.exports as (arg: object) => Promise<{ callMain(args: string[]): number }>;

  const decode = (chunks: Uint8Array[]): string => Buffer.concat(chunks).toString('utf8');
  // Node 24 with the loader's --no-wasm-lazy-compilation: the engine's asynchronous compile
  // does not keep the thread's event loop alive, which would end the thread (exit 0) before
  // the engine is loaded. A timer holds it until then.
  const loading = setInterval(() => undefined, 1 << 30);
  void factory({}).then((engine) => {
    clearInterval(loading);
    port.postMessage({ type: 'loaded' });
    const run = (args: string[]): number => {
      stdout = [];
      stdoutBytes = 0;
      stderr = [];
      try {
        return engine.callMain(args);
      } catch {
        // An abort (out of memory): the engine is spent.
        return -1;
      }
    };
    // A syntax error is a usage error before any request: inside `if false then … else
    // empty end` jq compiles the expression and never evaluates it. The newlines keep a
    // trailing `# comment` from swallowing the wrapper. A program the wrapper cannot hold
    // (a module directive) is compiled alone; only a compile error counts.
    let compileError: string | undefined;
    if (run(['-n', '-M', `if false then (\n${data.expr}\n) else empty end`]) !== 0) {
      const status = run(['-n', '-M', data.expr]);
      const text = decode(stderr);
      if (status !== 0 && /compile error/.test(text)) compileError = text;
    }
    port.postMessage({ type: 'checked', compileError });
    port.on('message', (msg: ToWorker) => {
      if (msg.type === 'input') {
        texts.push(encoder.encode(msg.text));
        return;
      }
      const open = encoder.encode('[');
      const comma = encoder.encode(',');
      input = msg.single ? texts.slice(0, 1) : [open, ...texts.flatMap((t, i) => (i === 0 ? [t] : [comma, t])), encoder.encode(']')];
      texts.length = 0;
      streaming = true;
      lastFlush = Date.now();
      const status = run(['-M', '-r', '--unbuffered', data.expr]);
      streaming = false;
      flush();
      port.postMessage({ type: 'done', status, stderr: decode(stderr), outOfMemory });
    });
  });
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
  let left = timeMs;
  let since: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let failed: ((err: Error) => void) | undefined;
  const clock = {
    start() {
      since = Date.now();
      timer = setTimeout(() => {
        stop();
        failed?.(outOfTime(timeMs));
      }, left);
    },
    pause() {
      if (since === undefined) return;
      clearTimeout(timer);
      left = Math.max(0, left - (Date.now() - since));
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
      worker.postMessage({ type: 'input', text: page } satisfies ToWorker);
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
            reject(new HostctlError(`--jq: ${jqMessage(msg.stderr).replace(/\(at <stdin>:\d+\):\s*/, '')}`, 'The expression ran over the output as `--json` prints it; check it against that.'));
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

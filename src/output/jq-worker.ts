// The worker's side of `--jq` (src/output/jq.ts starts it). A module of its own because it
// runs from its source text: jq.ts hands `jqWorker.toString()` to a worker thread, so the
// function may use nothing from outside itself but its arguments and globals. For the same
// reason the mutation tester leaves this file out (stryker.config.mjs): its instrumented
// copy would call helpers that exist only in the main thread.

import type { MessagePort } from 'node:worker_threads';

export interface WorkerData {
  engine: string;
  file: string;
  expr: string;
  /** One Int32: the main thread sets it to 1 once it has written a batch. */
  ack: SharedArrayBuffer;
  flushBytes: number;
  flushMs: number;
}

export type FromWorker =
  | { type: 'loaded' }
  | { type: 'checked'; compileError?: string }
  | { type: 'out'; bytes: Uint8Array }
  | { type: 'done'; status: number; stderr: string; outOfMemory: boolean };

export type ToWorker = { type: 'input'; bytes: Uint8Array } | { type: 'run'; single: boolean };

/**
 * The worker's side. It runs in the worker from its source text (Function.prototype.
 * toString), so it may use nothing from outside itself but its arguments and globals.
 */
export function jqWorker(port: MessagePort, data: WorkerData, req: (id: string) => unknown): void {
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
        texts.push(msg.bytes);
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

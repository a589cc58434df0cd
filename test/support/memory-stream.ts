// A stdout or stderr in memory, for the unit tests of one module and the in-process layer.

import { Writable } from 'node:stream';

export class MemoryStream extends Writable {
  text = '';
  isTTY?: boolean;
  // What ora calls on a terminal stream.
  cursorTo(): boolean {
    return true;
  }
  clearLine(): boolean {
    return true;
  }
  moveCursor(): boolean {
    return true;
  }
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: () => void): void {
    this.text += chunk.toString();
    cb();
  }
}

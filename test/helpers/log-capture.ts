// Captures the gateway's JSON log lines so tests can search them (e.g. for leaked secrets).
import { Writable } from 'node:stream';

export class LogCapture extends Writable {
  readonly lines: string[] = [];

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    callback();
  }

  get text(): string {
    return this.lines.join('\n');
  }
}

// Closing a connection whose request body was not read. Closing the socket at once while the
// client is still sending makes the kernel answer with a reset, and a reset can destroy the error
// response before the client reads it. As nginx's lingering close does, the gateway sends its
// answer and a FIN, then reads and discards what is still arriving for a short, fixed time.
// What it discards is paced, across the process (discard-pacer.ts): a connection over the pace stops
// being read, its client waits in TCP flow control, and one still waiting when its time is up is
// reset. One refused upload is read at once; a flood of them cannot fill the process with garbage.
import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { DiscardPacer } from './discard-pacer.js';

const LINGER_MS = 2000;
/**
 * At once, four times the largest signed body by default; then a pace that keeps a flood's garbage to
 * a few megabytes. A refused upload of up to 12 MiB is read within the linger on an idle gateway.
 */
const DISCARD_BURST_BYTES = 4 * 1024 * 1024;
const DISCARD_BYTES_PER_SECOND = 4 * 1024 * 1024;
/** The most one socket read brings (libuv's read size): what a connection reserves before it reads. */
const READ_BYTES = 64 * 1024;

const closing = new WeakSet<Socket>();
const discarding = new WeakSet<IncomingMessage>();
const pacer = new DiscardPacer(DISCARD_BYTES_PER_SECOND, DISCARD_BURST_BYTES);

/** True once the gateway has started closing this connection (later parser errors are expected). */
export function isClosing(socket: Socket): boolean {
  return closing.has(socket);
}

/**
 * For an answer given before its request's body was read to the end: arranges the lingering close
 * and says so (the answer is to carry Connection: close); false when the body was read, or none came.
 */
export function closingUnreadBody(request: IncomingMessage): boolean {
  if (request.complete) return false;
  closeAfterResponse(request);
  return true;
}

/** Ends the connection after `lastBytes`, discarding input for at most LINGER_MS, then destroys it. */
export function closeGracefully(socket: Socket, lastBytes?: string): void {
  if (closing.has(socket) || socket.destroyed) return;
  closing.add(socket);
  if (lastBytes === undefined) socket.end();
  else socket.end(lastBytes);
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

/**
 * Makes Node close this request's connection gracefully after its current response (instead of
 * destroySoon's reset), and discards the rest of its body at the pace (instead of Node's unpaced
 * dump once the response is sent).
 */
export function closeAfterResponse(request: IncomingMessage, pace: DiscardPacer = pacer): void {
  const socket = request.socket;
  (socket as Socket & { destroySoon(): void }).destroySoon = () => closeGracefully(socket);
  // Injected requests (tests, light-my-request) have no connection to read from.
  if (!(socket instanceof Socket) || discarding.has(request)) return;
  discarding.add(request);
  // The request flows, so each chunk is dropped as the parser hands it over (a paused request would
  // hold its buffered chunks), and it stays this listener's (Node dumps a request nobody reads, out
  // of sight of the pace). The socket is read only under a reservation of one read from the pace:
  // the request and Node's HTTP server resume it by themselves, some of it a tick later, so a resume
  // without one is undone at once, before any read.
  let reserved = 0;
  let cancelWait: (() => void) | undefined;
  const readWhenPaced = () => {
    if (cancelWait) return;
    if (reserved > 0 || pace.reserve(READ_BYTES)) {
      reserved = READ_BYTES;
      socket.resume();
      return;
    }
    socket.pause();
    cancelWait = pace.whenAvailable(() => {
      cancelWait = undefined;
      readWhenPaced();
    });
  };
  socket.on('resume', () => {
    if (reserved === 0) socket.pause();
  });
  request.on('data', (chunk: Buffer) => {
    // Chunks read before the refusal are counted all the same. What a read left of its reservation
    // goes back: the next read may bring a whole one, so it is reserved anew.
    const covered = Math.min(chunk.length, reserved);
    if (chunk.length > covered) pace.take(chunk.length - covered);
    if (reserved > covered) pace.refund(reserved - covered);
    reserved = 0;
    readWhenPaced();
  });
  socket.once('close', () => {
    cancelWait?.();
    if (reserved > 0) pace.refund(reserved);
  });
  // Also a request whose reader stopped part-way (a body over its limit) and paused it.
  request.resume();
  readWhenPaced();
}

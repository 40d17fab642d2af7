// Closing a connection whose request body was not read. Closing the socket at once while the
// client is still sending makes the kernel answer with a reset, and a reset can destroy the error
// response before the client reads it. As nginx's lingering close does, the gateway sends its
// answer and a FIN, then reads and discards what is still arriving for a short, fixed time.
import type { Socket } from 'node:net';

const LINGER_MS = 2000;
const closing = new WeakSet<Socket>();

/** True once the gateway has started closing this connection (later parser errors are expected). */
export function isClosing(socket: Socket): boolean {
  return closing.has(socket);
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

/** Makes Node close this connection gracefully after its current response (instead of destroySoon's reset). */
export function closeAfterResponse(socket: Socket): void {
  (socket as Socket & { destroySoon(): void }).destroySoon = () => closeGracefully(socket);
}

import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/**
 * How long and how much a connection is read after a refusal of its body, before it is closed (nginx's
 * `lingering_time` and `lingering_timeout`, and a size bound nginx does not have).
 */
export interface LingeringLimits {
  /** Longest the connection is kept reading after the answer. */
  timeMs: number;
  /** Longest wait for the client's next bytes: a client that went quiet is not sending into a closed socket. */
  idleMs: number;
  /** Most bytes read and thrown away after the answer. */
  maxBytes: number;
}

/** nginx's two times; 64 MiB is a few seconds of a fast uploader, and bounds the bandwidth one refusal may cost. */
export const defaultLingeringLimits: LingeringLimits = { timeMs: 30_000, idleMs: 5_000, maxBytes: 64 * 1024 * 1024 };

/**
 * Closes the connection of a request whose body was refused (413) the way nginx's lingering close does,
 * once the answer is written: half-close (the answer and a FIN go out), then read and discard what the
 * client is still sending until it closes its side or goes quiet, the body ends, or a bound is reached.
 *
 * Why: closing a socket while the client's bytes sit unread in its receive buffer makes the kernel send a
 * reset instead of a FIN, and a reset throws away the answer still on its way or in the client's buffer; a
 * client that sends on before reading (curl without `Expect: 100-continue`, fetch with a streamed body)
 * saw `connection reset` or `EPIPE` instead of the 413.
 */
export class LingeringClose {
  /** The connections lingering now, so a shutdown need not wait for their bounds. */
  private readonly sockets = new Set<Socket>();

  constructor(private readonly limits: LingeringLimits = defaultLingeringLimits) {}

  /**
   * Arranges the lingering close of the request's connection; call before the answer is sent with
   * `Connection: close`. Node's HTTP server closes such a connection by calling the socket's `destroySoon`
   * when the response finishes (`resOnFinish` in `_http_server.js`): this replaces that method on this one
   * socket. A body already read to its end needs nothing, since closing then loses no answer.
   */
  after(request: IncomingMessage): void {
    const socket = request.socket as Socket | null;
    if (!socket || request.complete) return;
    const { limits, sockets } = this;
    socket.destroySoon = function lingeringClose(this: Socket) {
      if (this.destroyed) return;
      sockets.add(this);
      let closing = false;
      // Once the answer has left for the kernel; then nothing unread means a clean close, not a reset.
      const close = () => {
        if (closing) return;
        closing = true;
        if (this.writableFinished) this.destroy();
        else this.once('finish', () => this.destroy());
      };
      // A client that reads nothing keeps the answer from leaving: past the deadline it is cut regardless.
      const deadline = setTimeout(() => this.destroy(), limits.timeMs).unref();
      // Node's server has its own timeout on the socket (and destroys it when it fires); this one is shorter.
      this.setTimeout(limits.idleMs, close);
      let discarded = 0;
      // The HTTP parser still reads the socket and hands the rest of the body to the request: drain, count.
      request.on('data', (chunk: Buffer) => {
        discarded += chunk.length;
        if (discarded > limits.maxBytes) close();
      });
      request.once('end', close);
      this.once('end', close);
      this.once('close', () => {
        clearTimeout(deadline);
        sockets.delete(this);
      });
      if (request.readableEnded) close();
      request.resume();
      this.end();
    };
  }

  /** Ends every lingering connection now (at shutdown, so closing the server does not wait for their bounds). */
  endAll(): void {
    for (const socket of this.sockets) socket.destroy();
  }
}

import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The connections of a server that have not sent a request yet. Node's `server.close()` closes idle
 * keep-alive connections, but counts a connection that never sent a request as waiting for headers, so
 * it holds the close until `headersTimeout` ends it (60 to 90 s). A proxy's connection pool leaves such
 * connections behind (the gateway's, after a client abandoned a proxied event stream), and the console then
 * took 70 s to stop. At shutdown they carry no work and are destroyed; a request already being answered
 * is never touched.
 */
export class RequestlessConnections {
  private readonly waiting = new Set<Socket>();

  constructor(server: Server) {
    server.on('connection', (socket: Socket) => {
      this.waiting.add(socket);
      socket.once('close', () => this.waiting.delete(socket));
    });
    // Once is enough: a connection that has sent a request is the server's to close when idle.
    server.on('request', (request) => this.waiting.delete(request.socket));
  }

  /** Destroys every connection that has sent no request. */
  destroyAll(): void {
    for (const socket of this.waiting) socket.destroy();
    this.waiting.clear();
  }
}

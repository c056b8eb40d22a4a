/**
 * A graceful stop of an HTTP server (issue 43): stop accepting connections, let every request in flight finish (each
 * response then says Connection: close), close the connections left idle, and only at the end of the grace period
 * cut whatever is still running. Node's own server.close() closes idle keep-alive connections at once, which races a
 * client that is just sending its next request on one (the request is then lost without an answer); here a
 * connection is closed only after it answered with Connection: close, or after it stayed idle for IDLE_CLOSE_MS
 * once nothing is in flight.
 */
import { Server as NetServer, type Socket } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** How long the connections must stay quiet, with nothing in flight, before the idle ones are closed. */
export const IDLE_CLOSE_MS = 500;

export interface Drainable {
  /** True once stop() began. */
  readonly stopping: boolean;
  /** Requests being answered now. */
  readonly inFlight: number;
  /**
   * Stops accepting, waits for the requests in flight (at most `graceMs`), closes the connections; resolves with the
   * number of requests cut by the end of the grace period (0 for a clean stop).
   */
  stop(graceMs: number): Promise<{ cut: number }>;
}

/** Tracks `server`'s connections and requests; install before the server listens, and before its request handler. */
export function drainable(server: Server): Drainable {
  const sockets = new Set<Socket>();
  const responses = new Set<ServerResponse>();
  let stopping = false;
  let lastActivity = Date.now();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    responses.add(res);
    lastActivity = Date.now();
    if (stopping) res.setHeader('Connection', 'close');
    res.once('close', () => {
      responses.delete(res);
      lastActivity = Date.now();
    });
  });
  let stopped: Promise<{ cut: number }> | undefined;
  const stop = async (graceMs: number): Promise<{ cut: number }> => {
    stopping = true;
    // Connections the kernel took but the server has not accepted yet would be reset by the close: let a poll phase
    // of the event loop accept them first (the second setImmediate runs after one).
    for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
    // The listening socket only: no new connections; the open ones carry on (net.Server's close, not http.Server's).
    NetServer.prototype.close.call(server);
    for (const res of responses) if (!res.headersSent) res.setHeader('Connection', 'close');
    const deadline = Date.now() + graceMs;
    lastActivity = Date.now();
    while (sockets.size > 0) {
      if (Date.now() >= deadline) {
        const cut = responses.size;
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
        return { cut };
      }
      if (responses.size === 0 && Date.now() - lastActivity >= IDLE_CLOSE_MS) server.closeIdleConnections();
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return { cut: 0 };
  };
  return {
    get stopping() {
      return stopping;
    },
    get inFlight() {
      return responses.size;
    },
    stop(graceMs) {
      stopped ??= stop(graceMs);
      return stopped;
    },
  };
}

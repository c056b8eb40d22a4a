/** Loopback ports. */
import { randomInt } from 'node:crypto';
import { createServer } from 'node:net';

/**
 * Where a port is drawn from: below the ephemeral ranges of Linux (32768–60999), macOS and Windows
 * (49152–65535), and above the well-known services. A port taken now and listened on later (a
 * back-channel logout receiver, a loopback redirect) is then never the source port an outgoing
 * connection happens to get in between; only another listener could take it, and a listener draws
 * from 12,000 ports.
 */
const LOW = 20000;
const HIGH = 32000;
const TRIES = 50;

/** Whether 127.0.0.1:`port` can be listened on now (bound, then let go). */
function free(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** A port the system picks (its ephemeral range), bound then let go: the fallback when the draw finds none. */
function systemPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A loopback port nothing listens on, for a listener opened later (the harness never fetches it):
 * drawn at random from 20000–31999 until one is free, else one the system picks.
 */
export async function unusedLoopbackPort(): Promise<number> {
  for (let i = 0; i < TRIES; i++) {
    const port = randomInt(LOW, HIGH);
    if (await free(port)) return port;
  }
  return systemPort();
}

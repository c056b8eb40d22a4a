import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { unusedLoopbackPort } from '../../harness/http/ports.ts';

function listen(port: number): Promise<ReturnType<typeof createServer>> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe('unusedLoopbackPort', () => {
  it('gives a port below the ephemeral ranges that can be listened on', async () => {
    for (let i = 0; i < 5; i++) {
      const port = await unusedLoopbackPort();
      expect(port).toBeGreaterThanOrEqual(20000);
      expect(port).toBeLessThan(32000);
      const server = await listen(port);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('never gives a port something listens on', async () => {
    const taken: ReturnType<typeof createServer>[] = [];
    for (let i = 0; i < 20; i++) taken.push(await listen(await unusedLoopbackPort()));
    const ports = new Set(taken.map((s) => (s.address() as { port: number }).port));
    try {
      for (let i = 0; i < 20; i++) expect(ports.has(await unusedLoopbackPort())).toBe(false);
    } finally {
      await Promise.all(taken.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    }
  });
});

// In the system group: it compiles the runtime code with tsc (seconds) and starts server processes.
import { describe, expect, it } from 'vitest';
import { buildReferenceForBench } from '../../bench/reference-build.ts';
import { ServerProcess } from '../../bench/server.ts';

describe('the bench reference', () => {
  it('runs the reference compiled by tsc, as published, from the module BENCH_REFERENCE_MODULE names', async () => {
    const before = process.env.BENCH_REFERENCE_MODULE;
    try {
      process.env.BENCH_REFERENCE_MODULE = new URL('./no-such-reference.js', import.meta.url).href;
      await expect(ServerProcess.start({ alg: 'EdDSA' })).rejects.toThrow(/exited/);
      process.env.BENCH_REFERENCE_MODULE = buildReferenceForBench();
      expect(process.env.BENCH_REFERENCE_MODULE).toMatch(
        /node_modules\/\.cache\/idp-conformance-bench\/reference\/index\.js$/,
      );
      const server = await ServerProcess.start({ alg: 'EdDSA' });
      try {
        const discovery = await fetch(`${server.issuer}/.well-known/openid-configuration`);
        expect(((await discovery.json()) as { issuer: string }).issuer).toBe(server.issuer);
      } finally {
        await server.close();
      }
    } finally {
      if (before === undefined) delete process.env.BENCH_REFERENCE_MODULE;
      else process.env.BENCH_REFERENCE_MODULE = before;
    }
  }, 180_000);
});

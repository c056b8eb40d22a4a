/**
 * The physical limit of token issuance: how many signatures per second the machine makes with
 * the server's own signing key, through libuv's thread pool (node:crypto's asynchronous sign,
 * with the parameters the server signs with, reference/jws.ts), with many signatures in flight
 * so that every pool thread stays busy. Nothing else happens per signature: no JSON, no
 * base64url, no HTTP.
 */
import { sign } from 'node:crypto';
import type { SigningKey } from '../reference/index.ts';
import { signatureOptions } from '../reference/jws.ts';

export interface RawSignOptions {
  durationMs: number;
  /** Signatures in flight at once. */
  inflight: number;
  /** Size of the signed input; a JWT access token's header.payload is about this long. */
  inputBytes?: number;
}

export interface RawSignResult {
  signatures: number;
  durationMs: number;
  perSecond: number;
  /** CPU time of the whole process per signature (pool threads and event loop), microseconds. */
  cpuPerSignatureUs: number;
  threadPoolSize: number;
}

export async function rawSignRate(key: SigningKey, options: RawSignOptions): Promise<RawSignResult> {
  const input = Buffer.alloc(options.inputBytes ?? 400, 'e');
  const { digest, ...keyOptions } = signatureOptions(key.alg);
  const one = () =>
    new Promise<void>((resolve, reject) => {
      sign(digest, input, { key: key.privateKey, ...keyOptions }, (error) => (error ? reject(error) : resolve()));
    });
  let signatures = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const end = started + options.durationMs;
  await Promise.all(
    Array.from({ length: options.inflight }, async () => {
      while (performance.now() < end) {
        await one();
        signatures += 1;
      }
    }),
  );
  const durationMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    signatures,
    durationMs,
    perSecond: (signatures / durationMs) * 1000,
    cpuPerSignatureUs: (cpu.user + cpu.system) / signatures,
    threadPoolSize: Number(process.env.UV_THREADPOOL_SIZE ?? 4),
  };
}

/** Messages between the bench process and the server process (bench/server-process.ts). */
import type { SigningAlg } from '../reference/index.ts';
import type { RawSignOptions, RawSignResult } from './signing.ts';

export type BenchRequest =
  | ({ type: 'raw-sign' } & RawSignOptions)
  | { type: 'memory' }
  | { type: 'cpu' }
  | { type: 'profile-start' }
  | { type: 'profile-stop'; file: string }
  | { type: 'advance-clock'; ms: number }
  | { type: 'close' };

export interface MemorySample {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  /** Entries in the server's MemoryStore, expired ones included until a sweep (with Redis: its key count). */
  storeSize: number;
}

/** The client the load generator authenticates as (HTTP Basic), if not the reference's seeded machine client. */
export interface BenchClient {
  clientId: string;
  clientSecret: string;
  scope: string;
}

export type BenchResponse =
  | { type: 'ready'; issuer: string; port: number; alg: SigningAlg; kid: string; client?: BenchClient }
  | ({ type: 'raw-sign' } & RawSignResult)
  | ({ type: 'memory' } & MemorySample)
  | { type: 'cpu'; userUs: number; systemUs: number; mainThreadUs?: number }
  | { type: 'profile-start' }
  | { type: 'profile-stop'; file: string }
  | { type: 'advance-clock'; now: number }
  | { type: 'close' }
  | { type: 'error'; message: string };

/**
 * Token endpoint throughput: client_credentials requests (HTTP Basic, form body, as the seeded
 * machine client) from autocannon in this process against the server process, over loopback.
 * Every answer must be a 200: an error answered fast is not throughput.
 */
import autocannon from 'autocannon';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { SEEDED_CLIENTS } from '../reference/index.ts';
import type { BenchClient } from './protocol.ts';
import type { ServerProcess } from './server.ts';

export interface ThroughputOptions {
  durationS: number;
  /** Unmeasured load first, so that the JIT and the connections are warm. */
  warmupS: number;
  connections: number;
}

export interface ThroughputResult {
  requests: number;
  durationS: number;
  perSecond: number;
  latencyMs: { p50: number; p99: number };
  /** CPU the two processes used during the measured run, in cores (1 = one core busy all the time). */
  cores: { server: number; loadGenerator: number };
  /** CPU per issued token, microseconds: the server process, its main thread alone (Linux), the load generator. */
  cpuPerRequestUs: { server: number; serverMainThread?: number; loadGenerator: number };
}

const machine: BenchClient = {
  clientId: SEEDED_CLIENTS.machine.clientId,
  clientSecret: SEEDED_CLIENTS.machine.clientSecret,
  scope: SEEDED_CLIENTS.machine.allowedScope,
};

/** A client_credentials request as `client` (default: the reference's seeded machine client), HTTP Basic, a form. */
export function tokenRequest(issuer: string, client: BenchClient = machine) {
  return {
    url: `${issuer}/token`,
    method: 'POST' as const,
    headers: {
      authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: `grant_type=client_credentials&scope=${encodeURIComponent(client.scope)}`,
  };
}

/** One request first: the answer must be a JWT access token that verifies against the JWKS. */
export async function checkTokenResponse(server: ServerProcess, audience = server.issuer): Promise<void> {
  const { url, ...init } = tokenRequest(server.issuer, server.client);
  const res = await fetch(url, init);
  const body: unknown = await res.json();
  const token = typeof body === 'object' && body !== null && 'access_token' in body ? body.access_token : undefined;
  if (res.status !== 200 || typeof token !== 'string') {
    throw new Error(`the token endpoint answered ${res.status} ${JSON.stringify(body)}`);
  }
  const { protectedHeader } = await jwtVerify(token, createRemoteJWKSet(new URL(`${server.issuer}/jwks`)), {
    issuer: server.issuer,
    audience,
    typ: 'at+jwt',
    algorithms: [server.alg],
  });
  if (server.kid !== '' && protectedHeader.kid !== server.kid)
    throw new Error(`the token's kid ${String(protectedHeader.kid)} is not the server's ${server.kid}`);
}

function load(issuer: string, connections: number, durationS: number): Promise<autocannon.Result> {
  return autocannon({ ...tokenRequest(issuer), connections, duration: durationS });
}

export async function tokenThroughput(server: ServerProcess, options: ThroughputOptions): Promise<ThroughputResult> {
  await checkTokenResponse(server);
  if (options.warmupS > 0) await load(server.issuer, options.connections, options.warmupS);
  const serverBefore = await server.cpu();
  const ownBefore = process.cpuUsage();
  const result = await load(server.issuer, options.connections, options.durationS);
  const own = process.cpuUsage(ownBefore);
  const serverAfter = await server.cpu();
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(
      `the token endpoint failed under load: ${result.non2xx} non-2xx answers, ${result.errors} ` +
        `errors, ${result.timeouts} timeouts`,
    );
  }
  const durationS = result.duration;
  const requests = result['2xx'];
  const serverUs = serverAfter.userUs + serverAfter.systemUs - serverBefore.userUs - serverBefore.systemUs;
  const mainUs =
    serverAfter.mainThreadUs !== undefined && serverBefore.mainThreadUs !== undefined
      ? serverAfter.mainThreadUs - serverBefore.mainThreadUs
      : undefined;
  const ownUs = own.user + own.system;
  return {
    requests,
    durationS,
    perSecond: requests / durationS,
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99 },
    cores: { server: serverUs / 1e6 / durationS, loadGenerator: ownUs / 1e6 / durationS },
    cpuPerRequestUs: {
      server: serverUs / requests,
      ...(mainUs === undefined ? {} : { serverMainThread: mainUs / requests }),
      loadGenerator: ownUs / requests,
    },
  };
}

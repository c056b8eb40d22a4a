/**
 * oidc-provider 9 (interop/oidc-provider/provider.ts, the interop fixture) in a process of its own, for
 * `npm run bench -- --only vs-oidc-provider`: its client_credentials tokens as RFC 9068 JWTs signed RS256
 * (`apiAccessTokenFormat: 'jwt'`), like the reference's. The parent drives it over IPC with the messages of
 * bench/protocol.ts it needs: ready (with the machine client's credentials), cpu, profile-start/-stop, close.
 */
import { startOidcProvider } from '../interop/oidc-provider/provider.ts';
import { answerProfileRequest } from './profiler.ts';
import type { BenchRequest, BenchResponse } from './protocol.ts';

const started = await startOidcProvider({ apiAccessTokenFormat: 'jwt' });
const machine = started.target.clients.machine;
if (!machine?.clientSecret || !machine.scope) throw new Error('the oidc-provider fixture has no machine client');
const { port } = new URL(started.issuer);

const send = (message: BenchResponse) => process.send?.(message);

async function handle(request: BenchRequest): Promise<BenchResponse> {
  const profiled = await answerProfileRequest(request);
  if (profiled) return profiled;
  switch (request.type) {
    case 'cpu': {
      const { user, system } = process.cpuUsage();
      return { type: 'cpu', userUs: user, systemUs: system };
    }
    case 'close':
      await started.close();
      setImmediate(() => process.exit(0));
      return { type: 'close' };
    default:
      throw new Error(`the oidc-provider bench process does not answer ${request.type}`);
  }
}

process.on('message', (request: BenchRequest) => {
  handle(request).then(send, (error: unknown) =>
    send({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  );
});
// The parent gone (a crash, ^C): nothing is left listening.
process.on('disconnect', () => process.exit(0));
send({
  type: 'ready',
  issuer: started.issuer,
  port: Number(port),
  alg: 'RS256',
  kid: '',
  client: { clientId: machine.clientId, clientSecret: machine.clientSecret, scope: machine.scope },
});

import {
  CheckFailure,
  GRANT,
  type HttpResponse,
  PreconditionError,
  defineScenario,
} from '../../harness/scenario/scenario.ts';
import { remove, unmanageable } from '../../harness/registration/client.ts';
import { describeResponse, wasAccepted } from '../checks/index.ts';
import { codeClientMetadata, deleteRegistered, registerOrFail, registeredClient } from '../checks/registration.ts';

/**
 * RFC 7592 §2.3: a deleted client's client_id and client_secret stop working at the token endpoint.
 * With client_credentials offered, the client gets a token before the delete and none after. Else
 * a token request with a made-up code shows the client authenticated before (an error other than
 * invalid_client) and must get invalid_client after.
 */
export default defineScenario({
  id: 'registration.deleted-client',
  appliesTo: 'oauth2',
  title: 'After its registration is deleted, a client can no longer get tokens',
  requirements: {
    rfc7592_2_3: {
      spec: 'RFC 7592',
      section: '2.3',
      level: 'MUST',
      party: 'server',
      note: 'a successful delete invalidates the client_id and client_secret at the token endpoint',
    },
  },
  severity: 'high',
  requires: { capabilities: ['endpoint:registration', 'endpoint:token'] },
  catches: ['registration-delete-keeps-client'],
  async run(ctx) {
    const machine = ctx.target.capabilities.has('grant:client_credentials');
    const grants = machine
      ? { grant_types: ['client_credentials'], response_types: [], redirect_uris: [], scope: undefined }
      : {};
    const registration = await registerOrFail(ctx, codeClientMetadata(ctx, grants), 'registration of a client');
    const client = registeredClient(registration);
    const attempt = (label: string): Promise<HttpResponse> =>
      ctx.http.token(
        client,
        machine
          ? { grant_type: GRANT.clientCredentials }
          : { grant_type: GRANT.code, code: ctx.random(), redirect_uri: client.redirectUri },
        { label },
      );
    let deleted = false;
    try {
      const why = unmanageable(registration);
      if (why) ctx.skip(`the registration cannot be deleted: ${why}`);
      const before = await attempt('token request before the delete (control)');
      const authenticated = machine
        ? before.status === 200
        : before.body.error !== 'invalid_client' && before.status !== 401 && before.status < 500;
      if (!authenticated) {
        throw new PreconditionError(
          `before the delete, the registered client's token request got ${describeResponse(before)}: ` +
            'its credentials did not work, so their end cannot be seen',
        );
      }
      const removal = await remove(ctx.http, registration);
      if (!removal.ok && removal.status === 405) {
        ctx.skip('the target does not support deleting a client (RFC 7592 §2.3: HTTP 405)');
      }
      if (!removal.ok) throw new PreconditionError(`deleting the registered client failed: ${removal.problem}`);
      deleted = true;
      const after = await attempt('token request after the delete');
      const stillWorks = machine ? wasAccepted(after) : after.body.error !== 'invalid_client' && after.status !== 401;
      if (stillWorks) {
        throw new CheckFailure(
          `After a DELETE of its registration answered HTTP ${removal.status}, the client's ` +
            `${machine ? 'client_credentials' : 'authorization_code'} token request got ${describeResponse(after)}; ` +
            `${ctx.req.rfc7592_2_3} invalidates its client_id and client_secret.`,
          { requirement: ctx.req.rfc7592_2_3, kind: 'accepted' },
        );
      }
      ctx.evidence.note(`After the delete: ${describeResponse(after)}.`);
    } finally {
      if (!deleted) await deleteRegistered(ctx, registration);
    }
  },
});

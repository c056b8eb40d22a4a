import { CheckFailure, type HttpResponse, defineScenario } from '../../harness/scenario/scenario.ts';
import { read, update, unmanageable, type Registration } from '../../harness/registration/client.ts';
import { codeClientMetadata, registerOrFail, withRegistration } from '../checks/registration.ts';

/**
 * RFC 7592 §2: reading or changing a registration needs its registration access token. Without
 * it, or with a wrong one, the answer is a Bearer error (RFC 6750 §3.1: 401), never the client's
 * configuration. Tried: a read without a token, a read with a wrong one, an update with a wrong one.
 */
export default defineScenario({
  id: 'registration.management-auth',
  appliesTo: 'oauth2',
  title: 'Reading or changing a registration without its registration access token fails with 401',
  requirements: {
    rfc7592_2_1: {
      spec: 'RFC 7592',
      section: '2.1',
      level: 'MUST',
      party: 'server',
      note: 'a token that is not valid gets an error as described in RFC 6750',
    },
    rfc7592_2_2: { spec: 'RFC 7592', section: '2.2', level: 'MUST', party: 'server', note: 'the same for an update' },
    rfc6750_3_1: {
      spec: 'RFC 6750',
      section: '3.1',
      level: 'SHOULD',
      party: 'server',
      note: 'invalid_token: respond with HTTP 401',
    },
  },
  severity: 'critical',
  requires: { capabilities: ['endpoint:registration'] },
  catches: ['registration-management-open'],
  async run(ctx) {
    const registration = await registerOrFail(ctx, codeClientMetadata(ctx), 'registration of a confidential client');
    await withRegistration(ctx, registration, async () => {
      const why = unmanageable(registration);
      if (why) ctx.skip(`the registration cannot be managed: ${why}`);
      const wrong = ctx.random(32);
      const attempts: { what: string; per: typeof ctx.req.rfc7592_2_1; send: () => Promise<HttpResponse> }[] = [
        {
          what: 'A read of the registration without a registration access token',
          per: ctx.req.rfc7592_2_1,
          send: async () => (await read(ctx.http, registration, { token: '', label: 'read without a token' })).response,
        },
        {
          what: 'A read of the registration with a wrong registration access token',
          per: ctx.req.rfc7592_2_1,
          send: async () =>
            (await read(ctx.http, registration, { token: wrong, label: 'read with a wrong token' })).response,
        },
        {
          what: 'An update of the registration with a wrong registration access token',
          per: ctx.req.rfc7592_2_2,
          send: async () => (await changeName(ctx.http, registration, wrong)).response,
        },
      ];
      for (const { what, per, send } of attempts) {
        const res = await send();
        if (res.status >= 200 && res.status < 300) {
          throw new CheckFailure(
            `${what} got HTTP ${res.status}${res.body.client_id ? " with the client's configuration" : ''}; ` +
              `${per} requires an RFC 6750 error response.`,
            { requirement: per, kind: 'accepted' },
          );
        }
        await ctx.softly(() => {
          if (res.status !== 401) {
            throw new CheckFailure(`${what} got HTTP ${res.status}; ${ctx.req.rfc6750_3_1} asks for HTTP 401.`, {
              requirement: ctx.req.rfc6750_3_1,
              kind: 'refused-wrongly',
            });
          }
        });
      }
      ctx.evidence.note('All three were refused.');
    });
  },
});

function changeName(http: Parameters<typeof update>[0], registration: Registration, token: string) {
  const metadata = { ...registration.metadata, client_name: 'changed without the registration access token' };
  return update(http, registration, metadata, { token, label: 'update with a wrong token' });
}

import { type Client, defineScenario } from '../../harness/scenario/scenario.ts';
import {
  SECRET_ROLES,
  cannotCarrySecret,
  expectControl,
  expectHeader,
  expectOAuthError,
  expectStatus,
  freshGrantParams,
  tokensOf,
} from '../checks/index.ts';

const SECRET_METHODS = ['client_secret_basic', 'client_secret_post'] as const;

export default defineScenario({
  id: 'client-auth.bad-secret',
  title: 'A wrong client secret gets invalid_client (401 with WWW-Authenticate: Basic when Basic was used)',
  requirements: {
    rfc6749_5_2: {
      spec: 'RFC 6749',
      section: '5.2',
      level: 'MUST',
      party: 'server',
      note: 'invalid_client; 401 and WWW-Authenticate for Basic',
    },
    // "The client MUST authenticate" (§4.4.2) binds the client; §3.2.1 makes the server require and check it.
    rfc6749_4_4_2: {
      spec: 'RFC 6749',
      section: '4.4.2',
      level: 'MUST',
      party: 'client',
      note: 'the client must authenticate',
    },
    rfc6749_3_2_1: {
      spec: 'RFC 6749',
      section: '3.2.1',
      level: 'MUST',
      party: 'server',
      note: 'require and check client authentication',
    },
  },
  severity: 'critical',
  appliesTo: 'oauth2',
  // Any confidential client that authenticates with a secret carries the probe: the machine client by
  // client_credentials, else a code-flow client redeeming a code of its own (a fresh one for every attempt).
  requires: { optionalRoles: SECRET_ROLES, capabilities: ['endpoint:token'] },
  catches: ['client-secret-unchecked'],
  async run(ctx) {
    const tried: string[] = [];
    let carrier: { client: Client; methods: (typeof SECRET_METHODS)[number][] } | undefined;
    for (const role of SECRET_ROLES) {
      const why = cannotCarrySecret(ctx, role);
      if (why) {
        tried.push(`${role}: ${why}`);
        continue;
      }
      const client = ctx.client(role);
      // The configured method, and the other one when the target advertises it: a wrong secret is
      // invalid_client whichever way it is sent.
      const methods = SECRET_METHODS.filter((m) => m === client.authMethod || ctx.target.supports(`auth:${m}`));
      if (methods.length) {
        carrier = { client, methods };
        break;
      }
      tried.push(`${role}: authenticates with "${client.authMethod}" and the target advertises no secret-based method`);
    }
    if (!carrier) return ctx.skip(`no confidential client to send a wrong secret as (${tried.join('; ')})`);
    const { client, methods } = carrier;
    const grant = client.role === 'machine' ? 'client_credentials' : 'authorization_code';
    if (tried.length) ctx.log(`the ${client.role} client carries the probe (${tried.join('; ')})`);
    const wrong = `${client.clientSecret ?? ''}-wrong-${ctx.random(6)}`;
    for (const auth of methods) {
      const label = `${grant} with a wrong secret (${auth})`;
      const res = await ctx.http.token(client, await freshGrantParams(ctx, client), { auth, secret: wrong, label });
      const rule = {
        when:
          `A${grant === 'authorization_code' ? 'n' : ''} ${grant} request of the ${client.role} client with a ` +
          `wrong client secret (${auth})`,
        per: ctx.req.rfc6749_5_2,
      };
      await ctx.softly(() => {
        expectOAuthError(res, 'invalid_client', rule);
        if (auth !== 'client_secret_basic') return;
        // Authentication in the Authorization header: 401 and a challenge for the scheme used.
        expectStatus(res, 401, rule);
        expectHeader(res, 'WWW-Authenticate', /(^|,)\s*Basic(\s|,|$)/i, {
          ...rule,
          want: 'a WWW-Authenticate challenge with the Basic scheme',
        });
      });
    }
    await expectControl(
      'the requests with a wrong client secret were refused',
      `${grant} with the right secret`,
      async () =>
        tokensOf(
          await ctx.http.token(client, await freshGrantParams(ctx, client), {
            label: `${grant} with the right secret`,
          }),
          `${grant} with the right secret`,
        ),
    );
  },
});

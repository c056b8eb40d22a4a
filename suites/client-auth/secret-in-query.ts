import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import {
  SECRET_ROLES,
  cannotCarrySecret,
  describeResponse,
  expectControl,
  freshGrantParams,
  tokensOf,
} from '../checks/index.ts';

export default defineScenario({
  id: 'client-auth.secret-in-query',
  title: 'A token request whose client_id and client_secret are in the request URI (not the body) is refused',
  requirements: {
    // "The parameters can only be transmitted in the request-body and MUST NOT be included in the request URI": it
    // binds whoever sends them, the client; RFC 6749 requires no refusal of the server, so --profile rfc skips this.
    rfc6749_2_3_1: {
      spec: 'RFC 6749',
      section: '2.3.1',
      level: 'MUST',
      party: 'client',
      note: 'client_id and client_secret only in the request body, never in the request URI',
    },
    specAuthentication: {
      spec: 'SPEC',
      section: 'Authentication',
      level: 'MUST',
      party: 'server',
      note: 'rule 1: the client secret in the request body or with HTTP Basic',
    },
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  requires: { optionalRoles: SECRET_ROLES, capabilities: ['endpoint:token'] },
  catches: ['client-secret-in-query-accepted'],
  async run(ctx) {
    const tried: string[] = [];
    const role = SECRET_ROLES.find((r) => {
      const why = cannotCarrySecret(ctx, r);
      if (why) tried.push(`${r}: ${why}`);
      return why === undefined;
    });
    if (!role) return ctx.skip(`no confidential client with a secret to send in the URI (${tried.join('; ')})`);
    const client = ctx.client(role);
    const url = new URL(ctx.target.endpoints.token ?? ctx.skip('the discovery document has no token_endpoint'));
    url.searchParams.set('client_id', client.clientId);
    url.searchParams.set('client_secret', client.clientSecret ?? '');
    const params = await freshGrantParams(ctx, client);
    const res = await ctx.http.send({
      method: 'POST',
      url: url.href,
      form: params,
      label: `${params.grant_type} request of the ${client.role} client, client_id and client_secret in the URI`,
    });
    if (res.status >= 200 && res.status < 300 && typeof res.body.access_token === 'string') {
      throw new CheckFailure(
        `The token endpoint took client_id and client_secret from the request URI (the ${client.role} client's ` +
          `${params.grant_type} request, nothing in the body or an Authorization header) and answered ` +
          `${describeResponse(res)}; ${ctx.req.specAuthentication} takes the secret from the body or HTTP Basic, ` +
          'and RFC 6749 §2.3.1 keeps it out of the URI.',
        { requirement: ctx.req.specAuthentication },
      );
    }
    ctx.evidence.note(`The credentials in the URI were refused: ${describeResponse(res)}.`);
    const sound = `the same ${params.grant_type} request of the ${client.role} client, authenticated as configured`;
    await expectControl('the request with the credentials in the URI was refused', sound, async () =>
      tokensOf(await ctx.http.token(client, await freshGrantParams(ctx, client), { label: sound }), sound),
    );
  },
});

import { CheckFailure, type Client, type ScenarioContext, defineScenario } from '../../harness/scenario/scenario.ts';
import {
  cannotGetToken,
  describeResponse,
  expectControl,
  findClient,
  freshGrantParams,
  tokensOf,
} from '../checks/index.ts';

/** Any client that can get a token of its own carries the probe: the machine client first (no login needed). */
const ROLES = ['machine', 'confidential', 'public', 'confidential2'] as const;

export default defineScenario({
  id: 'token.get-refused',
  title: 'A token request sent with GET, its parameters in the query string, is refused (no token issued)',
  requirements: {
    // "The client MUST use the HTTP POST method when making access token requests": it binds the client, and no
    // sentence of RFC 6749 requires the server to refuse a GET, so under --profile rfc the scenario is skipped.
    rfc6749_3_2: {
      spec: 'RFC 6749',
      section: '3.2',
      level: 'MUST',
      party: 'client',
      note: 'the client MUST use the HTTP POST method when making access token requests',
    },
    specTokenEndpoint: {
      spec: 'SPEC',
      section: 'Token endpoint',
      level: 'MUST',
      party: 'server',
      note: 'rule 1: the token endpoint is POST {issuer}/token',
    },
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  requires: { optionalRoles: ROLES, capabilities: ['endpoint:token'] },
  catches: ['token-accepts-get'],
  async run(ctx) {
    const client =
      findClient(ctx, ROLES, (c) => cannotGetToken(ctx, c) === undefined) ??
      ctx.skip(
        'needs a client that can get a token of its own: clients.machine (client_credentials), or a code-flow ' +
          'client (clients.confidential, public or confidential2 with a redirectUri) and a user',
      );
    const res = await ctx.http.send(await getRequest(ctx, client));
    if (res.status >= 200 && res.status < 300 && typeof res.body.access_token === 'string') {
      throw new CheckFailure(
        `The token endpoint answered a GET (the ${client.role} client's token request in the query string) with ` +
          `${describeResponse(res)}; ${ctx.req.specTokenEndpoint} has token requests POSTed (RFC 6749 §3.2).`,
        { requirement: ctx.req.specTokenEndpoint },
      );
    }
    ctx.evidence.note(`The token request sent with GET was refused: ${describeResponse(res)}.`);
    const sound = `the same token request of the ${client.role} client sent with POST`;
    await expectControl('the token request sent with GET was refused', sound, async () =>
      tokensOf(await ctx.http.token(client, await freshGrantParams(ctx, client), { label: sound }), sound),
    );
  },
});

/**
 * The client's token request as a GET: its form fields in the query string, its headers kept. A client with a secret
 * authenticates with HTTP Basic where it may, so that the secret stays out of the URI.
 */
async function getRequest(
  ctx: ScenarioContext,
  client: Client,
): Promise<{ method: 'GET'; url: string; headers: Record<string, string>; label: string }> {
  const basic =
    client.clientSecret !== undefined &&
    (client.authMethod === 'client_secret_basic' || ctx.target.supports('auth:client_secret_basic'));
  const post = ctx.http.tokenRequest(client, await freshGrantParams(ctx, client), {
    encoding: 'form',
    ...(basic ? { auth: 'client_secret_basic' as const } : {}),
  });
  const url = new URL(post.url);
  for (const [name, value] of Object.entries(post.form ?? {}))
    if (value !== undefined) url.searchParams.set(name, value);
  return {
    method: 'GET',
    url: url.href,
    headers: post.headers ?? {},
    label: `token request of the ${client.role} client sent with GET, its parameters in the query string`,
  };
}

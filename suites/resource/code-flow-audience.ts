import {
  CheckFailure,
  type Client,
  GRANT,
  PreconditionError,
  type ScenarioContext,
  defineScenario,
} from '../../harness/scenario/scenario.ts';
import { CLIENT_ROLES } from '../../harness/model/requirements.ts';
import { CODE_FLOW_ROLES, cannotGetToken, findClient } from '../checks/clients.ts';
import { expectOAuthError } from '../checks/oauth.ts';
import {
  acceptedByResource,
  audienceOf,
  grantParams,
  resourceAnswer,
  resourceRequest,
} from '../checks/protected-resource.ts';
import { codeFlowScope } from '../checks/scope.ts';

type Req = 'rfc8707_2' | 'rfc8707_2_1' | 'rfc9700_2_3';

export default defineScenario({
  id: 'resource.code-flow-audience',
  title:
    'A code asked for with resource=R yields an access token for R only; an unknown resource or one with a ' +
    'fragment gets invalid_target; a refresh does not widen the token to another resource',
  requirements: {
    rfc8707_2: {
      spec: 'RFC 8707',
      section: '2',
      level: 'SHOULD',
      party: 'server',
      note: 'audience-restrict issued access tokens to the resource(s) indicated by the resource parameter',
    },
    rfc8707_2_1: {
      spec: 'RFC 8707',
      section: '2.1',
      level: 'SHOULD',
      party: 'server',
      note:
        'a resource it cannot parse or does not accept: an error with invalid_target (a lower-case "should"); the ' +
        'resource of the authorization request applies to the full grant',
    },
    rfc9700_2_3: {
      spec: 'RFC 9700',
      section: '2.3',
      level: 'SHOULD',
      party: 'server',
      note: 'access tokens audience-restricted to a resource server',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    optionalRoles: CODE_FLOW_ROLES,
    capabilities: ['grant:authorization_code', 'endpoint:authorization', 'endpoint:token'],
  },
  catches: ['resource-ignored-in-code-flow'],
  async run(ctx) {
    const indicated = resourceIndicator(ctx);
    const able = (c: Client) => cannotGetToken(ctx, c) === undefined;
    const client =
      (ctx.resource
        ? undefined
        : findClient(ctx, CODE_FLOW_ROLES, (c) => able(c) && c.resource === indicated.resource)) ??
      findClient(ctx, CODE_FLOW_ROLES, able);
    if (!client)
      return ctx.skip(
        `needs a code-flow client that can get a code (${CODE_FLOW_ROLES.map((r) => `clients.${r}`).join(', ')}, ` +
          'with a redirect URI, and a user who can log in)',
      );
    const { resource, from } = indicated;
    ctx.log(`resource indicator ${resource} (${from}); the code flow as ${client.role}`);
    let params: Record<string, string | undefined>;
    try {
      params = await grantParams(ctx, client, resource);
    } catch (error) {
      // The authorization server will not give this client a code for the resource: a missing premise, not a verdict.
      if (error instanceof PreconditionError && /redirected with error=/.test(error.message))
        return ctx.skip(
          `the authorization server issued no code for the resource ${resource} (${from}) to ${client.role}: ` +
            `${error.message}; a resource it issues tokens for is needed to judge the audience`,
        );
      throw error;
    }
    const res = await ctx.http.token(client, params, {
      label: `authorization_code token request with resource=${resource}`,
    });
    if (res.status !== 200 || typeof res.body.access_token !== 'string')
      return ctx.skip(
        `the authorization server issued no access token for the resource ${resource} (${from}) in the code flow ` +
          `(HTTP ${res.status}${typeof res.body.error === 'string' ? ` ${res.body.error}` : ''}), so its audience ` +
          'cannot be judged',
      );
    await expectAudience(ctx, client, 'The access token of the code', res.body.access_token, resource);
    if (typeof res.body.refresh_token === 'string') await refreshOnlyFor(ctx, client, res.body.refresh_token, resource);
    else ctx.evidence.note('No refresh token was issued: the refresh is not judged.');
    await expectRefused(ctx, client, resource, `https://unknown-${ctx.random(6).toLowerCase()}.invalid/x`, 'unknown');
    await expectRefused(ctx, client, resource, `${resource}#fragment`, 'with a fragment');
  },
});

/**
 * R: the config's protected resource, else a resource indicator the config names for a client (clients.<role>
 * .resource); else skipped with the reason (RFC 8707 defines no metadata that lists the resources a server knows).
 */
function resourceIndicator(ctx: ScenarioContext): { resource: string; from: string } {
  if (ctx.resource) return { resource: ctx.resource.url, from: 'resource.url of the config' };
  for (const role of [...CODE_FLOW_ROLES, ...CLIENT_ROLES]) {
    const resource = ctx.clients[role]?.resource;
    if (resource) return { resource, from: `clients.${role}.resource of the config` };
  }
  return ctx.skip(
    'needs a resource the authorization server issues tokens for: resource.url, or clients.<role>.resource, in the ' +
      'config (RFC 8707 defines no metadata that lists them)',
  );
}

/**
 * The token is for `resource` only, where that can be seen: its aud when it is a JWT, else the aud of its
 * introspection, else (for the config's protected resource) only that the resource takes it; otherwise noted.
 */
async function expectAudience(
  ctx: ScenarioContext<Req>,
  client: Client,
  what: string,
  token: string,
  resource: string,
): Promise<void> {
  const aud = await audienceOf(ctx, token);
  if (aud === undefined) {
    if (ctx.resource?.url === resource) {
      const res = await resourceRequest(ctx, ctx.resource, { token, label: 'the resource request with the token' });
      const taken = acceptedByResource(res) ? 'accepted' : 'refused';
      ctx.evidence.note(
        `${what} is opaque and introspection shows no aud: the resource ${taken} it (${resourceAnswer(res)}); ` +
          `whether it is for ${resource} only cannot be seen from outside.`,
      );
    } else ctx.evidence.note(`${what} is opaque and no introspection shows its aud: its audience cannot be seen.`);
    return;
  }
  ctx.evidence.note(`aud of ${what.toLowerCase()} asked for ${resource}: ${JSON.stringify(aud.value)} (${aud.from})`);
  await ctx.softly(() => {
    // The authorization server's own userinfo endpoint is what the openid scope of the same request is for (OIDC
    // Core §5.3): naming it too is not an audience beyond the request.
    const userinfo = ctx.target.endpoints.userinfo;
    const list = [aud.value].flat().filter((a) => a !== userinfo);
    if (list.length < [aud.value].flat().length)
      ctx.evidence.note(
        `The token names the userinfo endpoint ${userinfo} too, for the openid scope it was asked with.`,
      );
    if (!list.includes(resource) || list.length > 1)
      throw new CheckFailure(
        `${what} asked for resource=${resource} (as ${client.role}) has aud ${JSON.stringify(aud.value)} ` +
          `(${aud.from}); ${ctx.req.rfc8707_2.label} asks the server to audience-restrict it to the indicated ` +
          'resource, and nothing else.',
        { requirement: ctx.req.rfc8707_2 },
      );
  });
}

/**
 * A refresh of the grant made for `resource` does not widen it to another resource: asked for another one the
 * authorization server knows (resource.otherResource), it is refused, or its token is not for that one.
 */
async function refreshOnlyFor(ctx: ScenarioContext<Req>, client: Client, refreshToken: string, resource: string) {
  const other = ctx.resource?.otherResource;
  if (!other || other === resource) {
    ctx.evidence.note('No other resource the server knows (resource.otherResource): the refresh is not judged.');
    return;
  }
  const res = await ctx.http.token(
    client,
    { grant_type: GRANT.refresh, refresh_token: refreshToken, resource: other },
    { label: `refresh_token request for another resource, ${other}` },
  );
  if (res.status !== 200 || typeof res.body.access_token !== 'string') {
    ctx.evidence.note(
      `A refresh for ${other}, not granted, was refused: HTTP ${res.status} ${String(res.body.error)}.`,
    );
    return;
  }
  const aud = await audienceOf(ctx, res.body.access_token);
  if (aud === undefined) {
    ctx.evidence.note(`A refresh for ${other} issued an opaque token whose audience cannot be seen.`);
    return;
  }
  await ctx.softly(
    () => {
      if ([aud.value].flat().includes(other))
        throw new CheckFailure(
          `A refresh of the grant made for resource=${resource} issued, asked for ${other}, an access token with aud ` +
            `${JSON.stringify(aud.value)} (${aud.from}): the grant was widened to another resource; ` +
            `${ctx.req.rfc8707_2_1.label} applies the resource of the authorization request to the full grant, and ` +
            'RFC 8707 §2.2 lets policy limit a refresh to the resources originally granted.',
          { requirement: ctx.req.rfc8707_2_1 },
        );
    },
    { requirement: ctx.req.rfc8707_2_1 },
  );
}

/**
 * `value` (an unknown resource, or one with a fragment, which RFC 8707 §2 forbids) gets invalid_target: at the
 * authorization endpoint (an error redirect) or, when a code is issued, at the token request that names it.
 */
async function expectRefused(
  ctx: ScenarioContext<Req>,
  client: Client,
  resource: string,
  value: string,
  what: string,
): Promise<void> {
  const pkce = ctx.pkce.create();
  const outcome = await ctx.authorize(client.role, {
    scope: codeFlowScope(ctx.target, client.scope),
    resource: value,
    code_challenge: pkce.challenge,
    code_challenge_method: pkce.method,
  });
  const when = `A code-flow request for a resource ${what} (${value})`;
  if (outcome.kind === 'page') {
    ctx.evidence.note(`${when} ended on a page without a redirect: refused at the authorization endpoint.`);
    return;
  }
  if (outcome.params.error !== undefined) {
    ctx.evidence.note(
      `${when} was refused at the authorization endpoint with error=${outcome.params.error}.${
        outcome.params.error === 'invalid_target' ? '' : INVALID_TARGET_LOWER_CASE
      }`,
    );
    return;
  }
  const code = outcome.params.code;
  if (!code) {
    ctx.evidence.note(`${when} was answered by a redirect with neither a code nor an error.`);
    return;
  }
  const res = await ctx.http.token(
    client,
    {
      grant_type: GRANT.code,
      code,
      redirect_uri: outcome.request.redirect_uri,
      code_verifier: pkce.verifier,
      resource: value,
    },
    { label: `authorization_code token request for a resource ${what}` },
  );
  const error = res.body.error;
  if (res.status >= 400 && res.status < 500 && typeof error === 'string' && res.body.access_token === undefined) {
    const aside = error === 'invalid_target' ? '' : INVALID_TARGET_LOWER_CASE;
    ctx.evidence.note(`${when}: the token request was refused with error=${error}.${aside}`);
    return;
  }
  await ctx.softly(() =>
    expectOAuthError(res, 'invalid_target', {
      when: `${when} (a code was issued; the token request named it too, not ${resource})`,
      per: ctx.req.rfc8707_2_1,
    }),
  );
}

/** A refusal with another error code is noted, not judged: RFC 8707 §2.1's "should" is lower-case (RFC 8174). */
const INVALID_TARGET_LOWER_CASE =
  ' RFC 8707 §2.1 says the server "should" answer invalid_target, in lower case (not a BCP 14 keyword): noted, ' +
  'not judged.';

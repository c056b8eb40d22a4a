import {
  CheckFailure,
  type RequirementRef,
  type ScenarioContext,
  defineScenario,
} from '../../harness/scenario/scenario.ts';
import {
  expectedParts,
  forEachResponseType,
  frontChannelParams,
  frontChannelResponse,
  requireResponseTypes,
  withOpenid,
} from '../checks/index.ts';

/** The response types that return a token or an ID token from the authorization endpoint: fragment by default. */
const FRAGMENT_TYPES = ['token', 'id_token', 'id_token token', 'code id_token', 'code token', 'code id_token token'];

export default defineScenario({
  id: 'implicit.fragment-delivery',
  title:
    'A response type that returns a token or ID token from the authorization endpoint answers in the fragment, ' +
    'never in the query, its errors too',
  requirements: {
    multipleResponseTypes_3: {
      spec: 'OAuth 2.0 Multiple Response Types',
      section: '3',
      level: 'MUST',
      party: 'server',
      note: 'id_token: the fragment by default, "the query encoding MUST NOT be used"',
    },
    multipleResponseTypes_5: {
      spec: 'OAuth 2.0 Multiple Response Types',
      section: '5',
      level: 'MUST',
      party: 'server',
      note: 'each combination with token or id_token: the fragment by default, "the query encoding MUST NOT be used"',
    },
    rfc6749_4_2_2: {
      spec: 'RFC 6749',
      section: '4.2.2',
      level: 'MUST',
      party: 'server',
      note: 'token: the access token is delivered by adding the parameters to the fragment of the redirection URI',
    },
    // The errors: RFC 6749 §4.2.2.1 (token) and OIDC Core §3.2.2.6, §3.3.2.6 put them in the fragment too, without
    // a keyword; the Multiple Response Types sentence carries the SHOULD.
    multipleResponseTypes_errors: {
      spec: 'OAuth 2.0 Multiple Response Types',
      section: '5',
      level: 'SHOULD',
      party: 'server',
      note: '"Both successful and error responses SHOULD be returned using ... the default Response Mode" (§3 too)',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: { roles: ['legacy'], user: true, capabilities: ['endpoint:authorization'] },
  catches: ['implicit-params-in-query'],
  async run(ctx) {
    await forEachResponseType(ctx, requireResponseTypes(ctx, FRAGMENT_TYPES), async (responseType) => {
      // Plain OAuth "token" asks for the client's scope; every other type is OpenID Connect's (scope openid).
      const scope = responseType === 'token' ? { scope: ctx.client('legacy').scope || undefined } : {};
      const response = await frontChannelResponse(ctx, responseType, { params: scope });
      const per =
        responseType === 'token'
          ? ctx.req.rfc6749_4_2_2
          : responseType === 'id_token'
            ? ctx.req.multipleResponseTypes_3
            : ctx.req.multipleResponseTypes_5;
      const when = `The successful authorization response to response_type=${responseType}`;
      expectNoneInQuery(response.outcome.url, response.outcome.request, { when, per });
      const fragment = new URLSearchParams(new URL(response.outcome.url).hash.slice(1));
      const missing = expectedParts(responseType).filter((p) => !fragment.has(p));
      if (missing.length > 0)
        throw new CheckFailure(
          `${when} carries ${missing.join(', ')} outside the fragment of the redirect URI; ${per.label} has them ` +
            'in the fragment (the default response mode of this response type).',
          { requirement: per },
        );
      ctx.evidence.note(`response_type=${responseType}: ${expectedParts(responseType).join(', ')} in the fragment.`);
      await judgeError(ctx, responseType, ctx.req.multipleResponseTypes_errors);
    });
  },
});

/**
 * The same request for a scope the server does not know: an error redirect (invalid_scope, say) must come in the
 * fragment. A server may grant less than asked (RFC 6749 §3.3) or show an error page: then no error is judged.
 */
async function judgeError(ctx: ScenarioContext, responseType: string, per: RequirementRef): Promise<void> {
  const client = ctx.client('legacy');
  const unknown = `idpc-unknown-${ctx.random().slice(0, 8)}`;
  const base = responseType === 'token' ? client.scope : withOpenid(client.scope);
  const params = { ...frontChannelParams(ctx, responseType, ctx.random()), scope: `${base} ${unknown}`.trim() };
  const outcome = await ctx.authorize('legacy', params, { session: 'shared' });
  if (outcome.kind !== 'redirect' || !outcome.params.error) {
    ctx.evidence.note(
      `response_type=${responseType} for the unknown scope ${unknown} got no error redirect ` +
        `(${outcome.kind === 'redirect' ? 'the server granted the rest, as RFC 6749 §3.3 allows' : 'a page'}): ` +
        'where its errors go is not judged.',
    );
    return;
  }
  const when = `The error response (error=${outcome.params.error}) to response_type=${responseType}`;
  const held = await ctx.softly(() => expectNoneInQuery(outcome.url, outcome.request, { when, per }), {
    requirement: per,
  });
  if (held) ctx.evidence.note(`response_type=${responseType}: the error ${outcome.params.error} in the fragment.`);
}

/** No response parameter in the redirect's query (those the registered redirect URI carries itself aside). */
function expectNoneInQuery(url: string, request: Record<string, string>, rule: { when: string; per: RequirementRef }) {
  const own = new URLSearchParams(
    URL.canParse(request.redirect_uri ?? '') ? new URL(request.redirect_uri!).search : '',
  );
  const inQuery = [...new URL(url).searchParams.keys()].filter((name) => !own.has(name));
  if (inQuery.length > 0)
    throw new CheckFailure(
      `${rule.when} carries ${[...new Set(inQuery)].join(', ')} in the query of the redirect URI; ` +
        `${rule.per.label} (${rule.per.level}) has them in the fragment, not in the query, which reaches the ` +
        "client's server, its logs and Referer headers.",
      { requirement: rule.per },
    );
}

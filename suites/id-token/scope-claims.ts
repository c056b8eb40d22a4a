import { formatScope, parseScope, scopeSubset } from '../../generators/index.ts';
import { CheckFailure, PreconditionError, defineScenario } from '../../harness/scenario/scenario.ts';

/** The claims each scope value requests (OIDC Core §5.4). */
const SCOPE_CLAIMS: Readonly<Record<string, readonly string[]>> = {
  profile: [
    'name',
    'family_name',
    'given_name',
    'middle_name',
    'nickname',
    'preferred_username',
    'profile',
    'picture',
    'website',
    'gender',
    'birthdate',
    'zoneinfo',
    'locale',
    'updated_at',
  ],
  email: ['email', 'email_verified'],
  address: ['address'],
  phone: ['phone_number', 'phone_number_verified'],
};

/** The claims in `claims` that belong to a scope outside `granted`, with their scope. */
function overshared(claims: Record<string, unknown>, granted: ReadonlySet<string>): string[] {
  return Object.entries(SCOPE_CLAIMS)
    .filter(([scope]) => !granted.has(scope))
    .flatMap(([scope, names]) => names.filter((n) => claims[n] !== undefined).map((n) => `${n} (${scope})`));
}

export default defineScenario({
  id: 'id-token.scope-claims',
  title:
    'The profile, email, address and phone claims are released (ID token or userinfo) only when their scope ' +
    'was granted',
  requirements: {
    oidcCore_5_4: { spec: 'OIDC Core', section: '5.4', level: 'MUST', party: 'server' },
    specOidcScopesAndClaims: { spec: 'SPEC', section: 'OIDC scopes and claims', level: 'MUST', party: 'server' },
  },
  severity: 'high',
  appliesTo: 'oidc',
  requires: { roles: ['confidential'], user: true, capabilities: ['grant:authorization_code', 'endpoint:token'] },
  catches: ['claims-overshare'],
  async run(ctx) {
    const configured = parseScope(ctx.client('confidential').scope ?? '');
    const claimScopes = Object.keys(SCOPE_CLAIMS).filter((s) => configured.includes(s));
    if (claimScopes.length === 0) {
      ctx.skip("the confidential client's scope in the target config has none of profile, email, address, phone");
    }
    const userinfo = ctx.target.endpoints.userinfo;
    await ctx.property(
      scopeSubset(claimScopes),
      async (subset) => {
        const requested = ['openid', ...subset];
        const { tokens } = await ctx.flows.tokens('confidential', { scope: formatScope(requested) });
        // RFC 6749 §5.1: scope is in the response when it differs from the request.
        const granted = new Set(typeof tokens.scope === 'string' ? parseScope(tokens.scope) : requested);
        const per = ctx.req.oidcCore_5_4;
        if (tokens.id_token) {
          const extra = overshared(ctx.jwt.decode(tokens.id_token).payload, granted);
          if (extra.length) {
            throw new CheckFailure(
              `With scope "${[...granted].join(' ')}" granted, the ID token carries ${extra.join(', ')}; ${per} ` +
                `releases these claims only with their scope.`,
              { requirement: per },
            );
          }
        }
        if (!userinfo) return;
        const res = await ctx.http.get(userinfo, {
          headers: { authorization: `Bearer ${tokens.access_token}` },
          label: 'userinfo',
        });
        if (res.status !== 200)
          throw new PreconditionError(
            `the userinfo endpoint answered ${res.status} to a fresh access token, so its claims could not be seen`,
          );
        const claims = /application\/jwt/i.test(res.header('content-type') ?? '')
          ? ctx.jwt.decode(res.text.trim()).payload
          : res.body;
        const extra = overshared(claims, granted);
        if (extra.length) {
          throw new CheckFailure(
            `With scope "${[...granted].join(' ')}" granted, userinfo returns ${extra.join(', ')}; ${per} releases ` +
              `these claims only with their scope.`,
            { requirement: per },
          );
        }
      },
      {
        runs: 6,
        label: `scope subsets of ${claimScopes.join(' ')}`,
        show: (subset) => formatScope(['openid', ...subset]),
      },
    );
  },
});

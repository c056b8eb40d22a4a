import {
  CheckFailure,
  type Client,
  type ScenarioContext,
  type TokenSet,
  defineScenario,
} from '../../harness/scenario/scenario.ts';
import { findClient, partyClient, tokensAskingRefresh } from '../checks/index.ts';

/** Seconds two lifetimes may differ by and still count as equal (requests are seconds apart). */
const TOLERANCE = 5;

interface Lifetime {
  seconds: number;
  from: string;
}
interface Comparison {
  what: string;
  first: Lifetime;
  third: Lifetime;
}

const now = () => Math.floor(Date.now() / 1000);

/** The access token's lifetime: expires_in (RFC 6749 §5.1), else its JWT exp − iat. */
function accessLifetime(ctx: ScenarioContext, tokens: TokenSet): Lifetime | undefined {
  if (typeof tokens.expires_in === 'number') return { seconds: tokens.expires_in, from: 'expires_in' };
  if (tokens.access_token.split('.').length !== 3) return undefined;
  try {
    const { exp, iat } = ctx.jwt.decode(tokens.access_token).payload;
    return typeof exp === 'number' && typeof iat === 'number' ? { seconds: exp - iat, from: 'exp − iat' } : undefined;
  } catch (error) {
    if (error instanceof CheckFailure) return undefined;
    throw error;
  }
}

/** A refresh token's lifetime as introspection (RFC 7662 §2.2) tells it: exp − iat, else exp − now. */
async function refreshLifetime(
  ctx: ScenarioContext,
  introspector: Client | undefined,
  token: unknown,
): Promise<Lifetime | undefined> {
  const url = ctx.target.endpoints.introspection;
  if (!url || !introspector || typeof token !== 'string') return undefined;
  const res = await ctx.http.token(
    introspector,
    { token, token_type_hint: 'refresh_token' },
    { url, label: 'introspection of a refresh token' },
  );
  const { active, exp, iat } = res.body;
  if (res.status !== 200 || active !== true || typeof exp !== 'number') return undefined;
  return typeof iat === 'number'
    ? { seconds: exp - iat, from: 'introspection exp − iat' }
    : { seconds: exp - now(), from: 'introspection exp − now' };
}

const show = (c: Comparison) => `${c.what} ${c.third.seconds} s vs ${c.first.seconds} s, by ${c.third.from}`;

export default defineScenario({
  id: 'tokens.third-party-short-lived',
  title: 'Tokens issued to third-party clients live no longer than those of first-party clients',
  requirements: {
    specFirstPartyVersusThirdParty: {
      spec: 'SPEC',
      section: 'First-party versus third-party',
      level: 'MUST',
      party: 'server',
      note: 'token lifetime: third-party short',
    },
    // "Short" has no number: equal lifetimes may both be short, so they are only a warning.
    specLimits: {
      spec: 'SPEC',
      section: 'Limits',
      level: 'SHOULD',
      party: 'server',
      note: 'rule 1: third-party lifetimes shorter',
    },
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  requires: {
    optionalRoles: ['public', 'confidential', 'confidential2'],
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:token'],
  },
  catches: ['third-party-long-lived'],
  async run(ctx) {
    const first = partyClient(ctx, true);
    const third = partyClient(ctx, false);
    if (!first || !third) {
      return ctx.skip(
        `needs a code-flow client marked "firstParty": true and one marked false (with a redirectUri); the config ` +
          `has ${first ? 'no third-party' : 'no first-party'} one`,
      );
    }
    const a = (await tokensAskingRefresh(ctx, first.role)).tokens;
    const b = (await tokensAskingRefresh(ctx, third.role)).tokens;
    // Introspection needs a confidential client; the first-party one is asked about both tokens.
    const introspector = findClient(
      ctx,
      [first.role, 'confidential', 'confidential2'],
      (c) => c.clientSecret !== undefined,
    );
    const comparisons: Comparison[] = [];
    const access = [accessLifetime(ctx, a), accessLifetime(ctx, b)] as const;
    if (access[0] && access[1]) comparisons.push({ what: 'access token', first: access[0], third: access[1] });
    const refresh = [
      await refreshLifetime(ctx, introspector, a.refresh_token),
      await refreshLifetime(ctx, introspector, b.refresh_token),
    ] as const;
    if (refresh[0] && refresh[1]) comparisons.push({ what: 'refresh token', first: refresh[0], third: refresh[1] });
    if (comparisons.length === 0) {
      return ctx.skip(
        "neither the access tokens' nor the refresh tokens' lifetimes are observable (no expires_in, no JWT exp, no " +
          'introspection exp)',
      );
    }
    ctx.evidence.note(
      comparisons
        .map(
          (c) =>
            `${c.what}: third-party (${third.role}) ${c.third.seconds} s, first-party ` +
            `(${first.role}) ${c.first.seconds} s`,
        )
        .join('\n'),
      'lifetimes',
    );
    const longer = comparisons.filter((c) => c.third.seconds > c.first.seconds + TOLERANCE);
    if (longer.length) {
      throw new CheckFailure(
        `The third-party ${third.role} client's tokens live longer than the first-party ${first.role} client's ` +
          `(${longer.map(show).join('; ')}); SPEC › First-party versus third-party requires third-party lifetimes ` +
          `to be short, first-party ones may be long.`,
        { requirement: ctx.req.specFirstPartyVersusThirdParty },
      );
    }
    if (!comparisons.some((c) => c.third.seconds < c.first.seconds - TOLERANCE)) {
      throw new CheckFailure(
        `The third-party ${third.role} client's tokens live as long as the first-party ${first.role} client's ` +
          `(${comparisons.map(show).join('; ')}); SPEC › Limits (rule 1) asks for short third-party lifetimes where ` +
          `first-party ones may be longer.`,
        { requirement: ctx.req.specLimits },
      );
    }
  },
});

import {
  type AuthorizeResult,
  CheckFailure,
  defineScenario,
  describeOutcome,
  type RequirementRef,
  type ScenarioContext,
  type TokenSet,
} from '../../harness/scenario/scenario.ts';
import { UNMET_AUTHENTICATION_REQUIREMENTS } from '../../protocol/errors.ts';
import {
  authorizationAnswer,
  authorizeInSession,
  CODE_FLOW_CAPABILITIES,
  describeResponse,
  idTokenOf,
  offlineScope,
  redeemOutcome,
  refresh,
} from '../checks/index.ts';
import { parseScope } from '../../generators/scope.ts';

const ROLE = 'confidential';

/** The ID token's acr as sent (undefined when absent). */
const acrOf = (claims: Record<string, unknown>): unknown => claims.acr;
const shown = (acr: unknown) => (acr === undefined ? 'no acr' : `acr ${JSON.stringify(acr)}`);

export default defineScenario({
  id: 'step-up.acr',
  title:
    'acr_values is met (an acr from the requested values) or refused with unmet_authentication_requirements; an ' +
    'essential acr with values is met or the authentication fails; a refresh keeps the acr',
  requirements: {
    rfc9470_4: {
      spec: 'RFC 9470',
      section: '4',
      level: 'SHOULD',
      party: 'server',
      // OIDC Core §3.1.2.1 itself makes acr_values a voluntary claim request: no MUST to meet it.
      note: 'acr_values is met, or refused with unmet_authentication_requirements',
    },
    oidcCore_5_5_1_1: {
      spec: 'OIDC Core',
      section: '5.5.1.1',
      level: 'MUST',
      party: 'server',
      note: 'an essential acr: one of the requested values, or a failed authentication',
    },
    oidcCore_12_2: {
      spec: 'OIDC Core',
      section: '12.2',
      level: 'MUST',
      party: 'server',
      note: 'a refreshed ID token describes the original authentication: the same acr',
    },
  },
  severity: 'medium',
  appliesTo: 'oidc',
  requires: { roles: [ROLE], user: true, capabilities: CODE_FLOW_CAPABILITIES },
  catches: ['acr-ignored'],
  async run(ctx) {
    const listed = ctx.target.discovery?.acr_values_supported;
    const supported = Array.isArray(listed) ? listed.filter((v): v is string => typeof v === 'string' && v !== '') : [];
    if (supported.length === 0)
      return ctx.skip(
        'discovery has no acr_values_supported (OIDC Discovery §3), so there is no acr value the OP says it can meet',
      );
    // The first in code-point order, not in the listed order: a list the OP builds from a hash (LemonLDAP::NG's
    // order changes from one start to the next) must not change which value is asked, and so the verdict.
    const [wanted = ''] = [...supported].sort();
    ctx.evidence.note(
      `acr_values_supported lists ${supported.map((v) => JSON.stringify(v)).join(', ')}; the scenario asks for ` +
        `${JSON.stringify(wanted)} (the first in sorted order). max_age and auth_time are judged by ` +
        'id-token.auth-time.',
    );

    // 1. acr_values (RFC 9470 §4), with offline_access where offered, for the refresh of step 3.
    const scope = offlineScope(ctx.target, parseScope(ctx.client(ROLE).scope ?? ''));
    const first = await authorize(ctx, {
      acr_values: wanted,
      scope: scope.join(' '),
      ...(scope.includes('offline_access') ? { prompt: 'consent' } : {}),
    });
    let original: { tokens: TokenSet; claims: Record<string, unknown> } | undefined;
    const when = `The code flow with acr_values=${wanted}`;
    if (first.answer.kind === 'refused') {
      await ctx.softly(() => expectUnmet(first.outcome, when, ctx.req.rfc9470_4));
    } else {
      original = await redeemed(ctx, first.outcome, first.verifier, 'the request with acr_values');
      const acr = acrOf(original.claims);
      if (acr !== wanted) {
        await ctx.softly(() => {
          throw new CheckFailure(
            `${when} returned an ID token with ${shown(acr)}; RFC 9470 §4 asks the server to meet the requested ` +
              `class (or to refuse with ${UNMET_AUTHENTICATION_REQUIREMENTS}).`,
            { requirement: ctx.req.rfc9470_4, kind: 'refused-wrongly' },
          );
        });
      }
    }

    // 2. An essential acr through the claims parameter (OIDC Core §5.5.1.1): the listed value, and one no OP lists.
    if (ctx.target.discovery?.claims_parameter_supported === true) {
      const unlisted = `urn:idp-conformance:acr:unlisted-${ctx.random(8)}`;
      for (const values of [[wanted], [unlisted]]) {
        const claims = JSON.stringify({ id_token: { acr: { essential: true, values } } });
        const attempt = await authorize(ctx, { claims });
        const label = `The code flow asking for acr ${JSON.stringify(values[0])} as an essential claim`;
        if (attempt.answer.kind === 'refused') {
          ctx.evidence.note(`${label} was refused (${attempt.answer.how}): a failed authentication, as allowed.`);
          continue;
        }
        const { claims: idClaims } = await redeemed(
          ctx,
          attempt.outcome,
          attempt.verifier,
          'the essential acr request',
        );
        const acr = acrOf(idClaims);
        if (typeof acr === 'string' && values.includes(acr)) continue;
        await ctx.softly(() => {
          throw new CheckFailure(
            `${label} returned an ID token with ${shown(acr)}; OIDC Core §5.5.1.1 requires an acr matching one of ` +
              'the requested values, or the authentication to be treated as failed.',
            { requirement: ctx.req.oidcCore_5_5_1_1, kind: 'accepted' },
          );
        });
      }
    } else {
      ctx.evidence.note('claims_parameter_supported is not true: the essential acr (OIDC Core §5.5.1.1) is not asked.');
    }

    // 3. A refresh is no authentication: the refreshed ID token keeps the acr (OIDC Core §12.2).
    const refreshToken = original?.tokens.refresh_token;
    if (original === undefined || typeof refreshToken !== 'string' || refreshToken === '') {
      ctx.evidence.note('No refresh token came with the acr_values request: the refresh is not judged.');
      return;
    }
    const res = await refresh(ctx, ROLE, refreshToken, {}, `refresh_token as ${ROLE} (after acr_values)`);
    if (res.status !== 200 || typeof res.body.id_token !== 'string') {
      ctx.evidence.note(
        `The refresh got ${describeResponse(res)}, no ID token: the acr after a refresh is not judged.`,
      );
      return;
    }
    const refreshed = ctx.jwt.decode(res.body.id_token).payload;
    const before = acrOf(original.claims);
    const after = acrOf(refreshed);
    if (after !== undefined && after !== before) {
      throw new CheckFailure(
        `The ID token of a refresh has ${shown(after)} where the original authentication's had ${shown(before)}; ` +
          'OIDC Core §12.2 requires the refreshed ID token to describe the original authentication.',
        { requirement: ctx.req.oidcCore_12_2, kind: 'accepted' },
      );
    }
  },
});

/** An authorization request in a fresh login session (a new login each time), with S256 PKCE and a nonce. */
async function authorize(ctx: ScenarioContext, params: Record<string, string>) {
  const { outcome, verifier } = await authorizeInSession(ctx, ROLE, ctx.loginSession(), params);
  return { outcome, verifier, answer: authorizationAnswer(outcome, `The request with ${Object.keys(params)}`) };
}

async function redeemed(
  ctx: ScenarioContext,
  outcome: AuthorizeResult,
  verifier: string,
  what: string,
): Promise<{ tokens: TokenSet; claims: Record<string, unknown> }> {
  const tokens = await redeemOutcome(ctx, ROLE, outcome, verifier, what);
  return { tokens, ...idTokenOf(ctx, tokens, `redeeming the code of ${what}`) };
}

/** A refusal of acr_values: RFC 9470 §4's error is unmet_authentication_requirements. */
function expectUnmet(outcome: AuthorizeResult, when: string, per: RequirementRef): void {
  const error = outcome.kind === 'redirect' ? outcome.params.error : undefined;
  if (error === UNMET_AUTHENTICATION_REQUIREMENTS) return;
  throw new CheckFailure(
    `${when} ${describeOutcome(outcome)}; RFC 9470 §4 names ${UNMET_AUTHENTICATION_REQUIREMENTS} for a class the ` +
      'server cannot meet.',
    { requirement: per, kind: 'refused-wrongly' },
  );
}

import {
  CheckFailure,
  defineScenario,
  type HttpResponse,
  type ScenarioContext,
} from '../../harness/scenario/scenario.ts';
import {
  expectIntrospectionResponse,
  introspectionRequest,
  offlineCodeFlow,
  revocationRequest,
  scopeList,
} from '../checks/index.ts';

/** An inactive token is {active:false} (MUST) and nothing more (SHOULD NOT reveal more). */
async function expectInactive(
  ctx: ScenarioContext<'rfc7662_2_2' | 'inactiveOnly'>,
  res: HttpResponse,
  what: string,
): Promise<void> {
  const body = expectIntrospectionResponse(res, `Introspecting ${what}`, ctx.req.rfc7662_2_2);
  if (body.active !== false) {
    throw new CheckFailure(`Introspecting ${what} answered active:true; RFC 7662 §2.2 requires active:false.`, {
      requirement: ctx.req.rfc7662_2_2,
    });
  }
  const extra = Object.keys(body).filter((k) => k !== 'active');
  await ctx.softly(
    () => {
      if (extra.length)
        throw new CheckFailure(
          `Introspecting ${what} answered active:false with ${extra.join(', ')} as well; RFC 7662 §2.2 says the ` +
            `server should not reveal more about an inactive token.`,
        );
    },
    { requirement: ctx.req.inactiveOnly },
  );
}

export default defineScenario({
  id: 'introspection.active-state',
  title:
    'Introspection says active:true with scope and client_id for a live token, and only active:false for a revoked ' +
    'or unknown one',
  requirements: {
    rfc7662_2_2: { spec: 'RFC 7662', section: '2.2', level: 'MUST', party: 'server' },
    inactiveOnly: {
      spec: 'RFC 7662',
      section: '2.2',
      level: 'SHOULD',
      party: 'server',
      note: 'nothing but active:false for an inactive token',
    },
    rfc7009_2_1: {
      spec: 'RFC 7009',
      section: '2.1',
      level: 'MUST',
      party: 'server',
      note: 'a revoked token is invalid at once',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    roles: ['confidential'],
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:authorization', 'endpoint:token', 'endpoint:introspection'],
  },
  catches: ['introspection-always-active', 'revocation-noop'],
  async run(ctx) {
    const client = ctx.client('confidential');
    const { tokens, request } = await offlineCodeFlow(ctx, 'confidential');

    const live = expectIntrospectionResponse(
      await introspectionRequest(ctx, 'confidential', tokens.access_token, {
        hint: 'access_token',
        label: 'introspection of a live access token',
      }),
      'Introspecting a live access token',
      ctx.req.rfc7662_2_2,
    );
    if (live.active !== true) {
      throw new CheckFailure(
        `Introspecting an access token just issued to the client answered active:${JSON.stringify(live.active)}; ` +
          `RFC 7662 §2.2 requires active:true for a live token.`,
        { requirement: ctx.req.rfc7662_2_2, kind: 'refused-wrongly' },
      );
    }
    // scope and client_id are OPTIONAL members (§2.2); when present they describe this token.
    const granted = scopeList(tokens.scope ?? request.scope); // RFC 6749 §5.1: absent means as requested
    if (
      live.scope !== undefined &&
      (typeof live.scope !== 'string' || scopeList(live.scope).some((s) => !granted.includes(s)))
    ) {
      throw new CheckFailure(
        `Introspection gave the live access token the scope ${JSON.stringify(live.scope)}, beyond the ` +
          `"${granted.join(' ')}" it was granted; RFC 7662 §2.2 defines scope as the token's scopes.`,
        { requirement: ctx.req.rfc7662_2_2, kind: 'refused-wrongly' },
      );
    }
    if (live.client_id !== undefined && live.client_id !== client.clientId) {
      throw new CheckFailure(
        `Introspection gave the live access token client_id ${JSON.stringify(live.client_id)}, not ` +
          `"${client.clientId}" that requested it; RFC 7662 §2.2 defines client_id as that client's.`,
        { requirement: ctx.req.rfc7662_2_2, kind: 'refused-wrongly' },
      );
    }
    if (live.scope === undefined || live.client_id === undefined) {
      const missing = [live.scope === undefined && 'scope', live.client_id === undefined && 'client_id'];
      ctx.evidence.note(
        `The active answer has no ${missing.filter(Boolean).join(' or ')} (OPTIONAL members, RFC 7662 §2.2).`,
      );
    }

    await expectInactive(
      ctx,
      await introspectionRequest(ctx, 'confidential', ctx.random(32), {
        label: 'introspection of a token the target never issued',
      }),
      'a token the target never issued',
    );

    if (!ctx.target.endpoints.revocation) {
      ctx.evidence.note('The target advertises no revocation_endpoint: the revoked-token case was not tried.');
      return;
    }
    const [revoked, hint] = tokens.refresh_token
      ? [tokens.refresh_token, 'refresh_token' as const]
      : [tokens.access_token, 'access_token' as const];
    const res = await revocationRequest(ctx, 'confidential', revoked, hint);
    if (res.status !== 200) {
      ctx.evidence.note(
        `Revoking the ${hint} answered HTTP ${res.status}: the revoked-token case was not judged ` +
          `(revocation.refresh-token judges revocation).`,
      );
      return;
    }
    await expectInactive(
      ctx,
      await introspectionRequest(ctx, 'confidential', revoked, { hint, label: `introspection of the revoked ${hint}` }),
      `the ${hint} just revoked`,
    );
  },
});

import { CheckFailure, PreconditionError, defineScenario } from '../../harness/scenario/scenario.ts';
import { describeResponse, introspectionRequest } from '../checks/index.ts';

export default defineScenario({
  id: 'introspection.requires-auth',
  title: 'Introspection without client authentication is refused and reveals nothing about the token',
  requirements: { rfc7662_2_1: { spec: 'RFC 7662', section: '2.1', level: 'MUST', party: 'server' } },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    roles: ['confidential'],
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:authorization', 'endpoint:token', 'endpoint:introspection'],
  },
  catches: ['introspection-open'],
  async run(ctx) {
    const { tokens } = await ctx.flows.tokens('confidential');
    const control = await introspectionRequest(ctx, 'confidential', tokens.access_token, {
      label: 'authenticated introspection of the live token (control)',
    });
    if (control.status !== 200 || control.body.active !== true) {
      throw new PreconditionError(
        `introspecting a live access token with the client's credentials answered ${describeResponse(control)} ` +
          `rather than active:true, so an unauthenticated answer cannot be told apart from a refusal`,
      );
    }
    // RFC 7662 §2.1 (against token scanning): some form of authorization is required. Refused is
    // any error, or an answer that says nothing about the token; active:true or any claim is not.
    const attempts = [
      { auth: 'omit' as const, how: 'without any client authentication' },
      { auth: 'none' as const, how: 'with the client_id alone, without its secret' },
    ];
    for (const { auth, how } of attempts) {
      const res = await introspectionRequest(ctx, 'confidential', tokens.access_token, {
        auth,
        label: `introspection ${how}`,
      });
      const revealed =
        res.status >= 200 &&
        res.status < 300 &&
        res.json !== undefined &&
        (res.body.active === true || Object.keys(res.body).some((k) => k !== 'active'));
      if (revealed) {
        const told = res.body.active === true ? 'active:true' : Object.keys(res.body).join(', ');
        throw new CheckFailure(
          `Introspecting a live access token ${how} got HTTP ${res.status} with ${told}; RFC 7662 §2.1 requires the ` +
            `endpoint to demand authorization, so the token must not be described.`,
        );
      }
      if (res.status >= 200 && res.status < 300)
        ctx.evidence.note(
          `Introspection ${how} answered HTTP ${res.status} saying nothing about the live token ` +
            `(${res.text.slice(0, 40) || 'empty'}): no information given, counted as refused.`,
        );
    }
  },
});

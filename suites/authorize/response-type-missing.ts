import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import { CODE_FLOW_CAPABILITIES, authorizationAnswer, expectRefusalIsFor, pkceParams } from '../checks/index.ts';

export default defineScenario({
  id: 'authorize.response-type-missing',
  title: 'An authorization request without response_type gets an error, never a code',
  requirements: {
    oidcCore_3_1_2_1: {
      spec: 'OIDC Core',
      section: '3.1.2.1',
      level: 'MUST',
      party: 'server',
      note: 'response_type is REQUIRED',
    },
    rfc6749_4_1_2_1: {
      spec: 'RFC 6749',
      section: '4.1.2.1',
      level: 'MUST',
      party: 'server',
      note: 'invalid_request, redirected only to a registered redirect_uri',
    },
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  requires: { roles: ['confidential'], user: true, capabilities: CODE_FLOW_CAPABILITIES },
  catches: ['response-type-defaulted', 'redirect-open-on-error'],
  async run(ctx) {
    // The redirect_uri is the registered one, so an error may be redirected to it (RFC 6749 §4.1.2.1).
    const outcome = await ctx.authorize(
      'confidential',
      { response_type: undefined, ...pkceParams(ctx) },
      { session: 'shared' },
    );
    const answer = authorizationAnswer(outcome, 'The authorization request without response_type');
    if (answer.kind === 'code') {
      throw new CheckFailure(
        'The authorization request without response_type redirected with a code, as if response_type=code had been ' +
          'sent; OIDC Core §3.1.2.1 makes response_type REQUIRED and RFC 6749 §4.1.2.1 requires an error ' +
          '(invalid_request or unsupported_response_type).',
        { requirement: ctx.req.oidcCore_3_1_2_1 },
      );
    }
    // The refusal counts only if the same client gets a code for a sound request (with response_type).
    await expectRefusalIsFor(ctx, 'confidential', `without response_type ${answer.how}`, 'the missing response_type');
    ctx.evidence.note(`The authorization request without response_type ${answer.how}.`);

    // The error may go to a redirect_uri only once it is known to be registered (RFC 6749 §4.1.2.1).
    const unregistered = 'https://attacker.example.test/callback';
    const idp = new URL(ctx.target.endpoints.authorization!).origin;
    const elsewhere = await ctx.authorize(
      'confidential',
      { response_type: undefined, redirect_uri: unregistered, ...pkceParams(ctx) },
      { stayWithin: idp, session: 'shared' },
    );
    const target = elsewhere.kind === 'redirect' ? elsewhere.url : elsewhere.location;
    if (target !== undefined && new URL(target).origin === new URL(unregistered).origin) {
      throw new CheckFailure(
        `The authorization request without response_type and with the unregistered redirect_uri ${unregistered} was ` +
          `redirected there; RFC 6749 §4.1.2.1 forbids redirecting to an unverified redirection URI.`,
        { requirement: ctx.req.rfc6749_4_1_2_1 },
      );
    }
  },
});

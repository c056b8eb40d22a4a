import { encodeJson } from '../../generators/index.ts';
import { CheckFailure, defineScenario, describeOutcome } from '../../harness/scenario/scenario.ts';
import {
  CODE_FLOW_CAPABILITIES,
  expectRefusalIsFor,
  idTokenOf,
  redeemOutcome,
  refusalOf,
  withOpenid,
} from '../checks/index.ts';

/** Errors that refuse a request object (OIDC Core §3.1.2.6, §6.3). */
const REFUSALS = ['request_not_supported', 'invalid_request_object'];

export default defineScenario({
  id: 'request-object.unsigned',
  title:
    'An unsigned request object is processed (its values win), or refused with request_not_supported — never ' +
    'silently ignored',
  requirements: {
    oidcCore_6_1: {
      spec: 'OIDC Core',
      section: '6.1',
      level: 'MUST',
      party: 'server',
      note: 'values in the request object supersede the query parameters',
    },
    oidcCore_6_3: {
      spec: 'OIDC Core',
      section: '6.3',
      level: 'MUST',
      party: 'server',
      note: 'request_not_supported when request objects are not supported',
    },
  },
  severity: 'medium',
  appliesTo: 'oidc',
  requires: { roles: ['confidential'], user: true, capabilities: CODE_FLOW_CAPABILITIES },
  catches: ['request-object-ignored'],
  async run(ctx) {
    const client = ctx.client('confidential');
    const pkce = ctx.pkce.create();
    const objectState = `object-${ctx.random(8)}`;
    const objectNonce = ctx.random();
    // OIDC Core §6.1: response_type, client_id and scope (with openid) also in the query; the
    // request object's state and nonce differ from the query's, so the answer shows which won.
    const object = {
      iss: client.clientId,
      aud: ctx.target.issuer,
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      scope: withOpenid(client.scope),
      state: objectState,
      nonce: objectNonce,
      code_challenge: pkce.challenge,
      code_challenge_method: pkce.method,
    };
    const request = `${encodeJson({ alg: 'none' })}.${encodeJson(object)}.`;
    const outcome = await ctx.authorize(
      'confidential',
      {
        scope: withOpenid(client.scope),
        state: `query-${ctx.random(8)}`,
        nonce: ctx.random(),
        request,
        code_challenge: pkce.challenge,
        code_challenge_method: pkce.method,
      },
      { session: 'shared' },
    );
    const advertised = ctx.target.discovery?.request_parameter_supported === true;
    const when = 'The authorization request with an unsigned request object';
    if (outcome.kind === 'redirect' && outcome.params.error) {
      const error = outcome.params.error;
      if (!REFUSALS.includes(error)) {
        throw new CheckFailure(
          `${when} ${describeOutcome(outcome)}; OIDC Core §6.3 requires request_not_supported (or ` +
            `invalid_request_object for an object the OP will not accept).`,
          { requirement: ctx.req.oidcCore_6_3, kind: 'refused-wrongly' },
        );
      }
      if (advertised && error === 'request_not_supported') {
        throw new CheckFailure(
          `${when} got error=request_not_supported, yet discovery says request_parameter_supported: true; OIDC Core ` +
            `§6.1 requires a supported request object to be processed.`,
          { requirement: ctx.req.oidcCore_6_1, kind: 'refused-wrongly' },
        );
      }
      ctx.evidence.note(
        `${when} was refused with error=${error} ` +
          `(request_parameter_supported: ${String(ctx.target.discovery?.request_parameter_supported ?? 'absent')}).`,
      );
      await expectRefusalIsFor(
        ctx,
        'confidential',
        `with an unsigned request object got error=${error}`,
        'the request object',
      );
      return;
    }
    const byPage = outcome.kind === 'page' ? refusalOf(outcome) : undefined;
    if (byPage !== undefined) {
      // Refused by a page: the error code cannot be read, and whether the error should have been redirected is
      // authorize.errors-redirected's rule (RFC 6749 §4.1.2.1); the refusal counts if the request without the object
      // gets a code.
      await expectRefusalIsFor(ctx, 'confidential', `with an unsigned request object ${byPage}`, 'the request object');
      return;
    }
    if (outcome.kind !== 'redirect' || !outcome.params.code) {
      throw new CheckFailure(
        `${when} ${describeOutcome(outcome)}; OIDC Core §6.1 and §6.3 require either the code of the processed ` +
          `request or an error.`,
        { requirement: ctx.req.oidcCore_6_1, kind: 'refused-wrongly' },
      );
    }
    if (outcome.params.state !== objectState) {
      throw new CheckFailure(
        `${when} redirected with a code and ` +
          `state ${JSON.stringify(outcome.params.state)}` +
          `${outcome.params.state === outcome.request.state ? " (the query's)" : ''}, not the request ` +
          `object's ${JSON.stringify(objectState)}: the request object was ignored; OIDC Core §6.1 requires its ` +
          `values to supersede the query's, or §6.3 an error.`,
        { requirement: ctx.req.oidcCore_6_1, kind: 'refused-wrongly' },
      );
    }
    const tokens = await redeemOutcome(
      ctx,
      'confidential',
      outcome,
      pkce.verifier,
      'the request with a request object',
    );
    const { claims } = idTokenOf(ctx, tokens, 'redeeming the code of the request object');
    if (claims.nonce !== objectNonce) {
      throw new CheckFailure(
        `The ID token for the request object carries nonce ${JSON.stringify(claims.nonce)}, not the request ` +
          `object's; OIDC Core §6.1 requires the request object's values to be used.`,
        { requirement: ctx.req.oidcCore_6_1, kind: 'refused-wrongly' },
      );
    }
  },
});

import { generateKeyPairFor } from '../../protocol/jws.ts';
import {
  type AuthorizeResult,
  CheckFailure,
  defineScenario,
  describeOutcome,
  JudgementError,
  jwkOf,
  requestObject,
  requestObjectAlg,
  type RequestObjectOptions,
  type RequirementRef,
  type ScenarioContext,
} from '../../harness/scenario/scenario.ts';
import { authorizationAnswer, CODE_FLOW_CAPABILITIES, idTokenOf, redeemOutcome, withOpenid } from '../checks/index.ts';

const ROLE = 'keyed';

/** The algorithms discovery lists for request objects, or undefined when the field is absent or not a list. */
function advertisedAlgs(ctx: ScenarioContext): string[] | undefined {
  const listed = ctx.target.discovery?.request_object_signing_alg_values_supported;
  return Array.isArray(listed) ? listed.filter((a): a is string => typeof a === 'string') : undefined;
}

export default defineScenario({
  id: 'request-object.signed',
  title:
    "A request object signed with the client's key is processed and its values win over the query's; one that is " +
    'unsigned, wrongly signed, for another audience or expired is refused',
  requirements: {
    rfc9101_6_2: {
      spec: 'RFC 9101',
      section: '6.2',
      level: 'MUST',
      party: 'server',
      note: 'the signature is validated with a key of the client',
    },
    oidcCore_6_3_2: {
      spec: 'OIDC Core',
      section: '6.3.2',
      level: 'MUST',
      party: 'server',
      note: 'alg as registered; the signature validated with the client key',
    },
    rfc9101_6_3: {
      spec: 'RFC 9101',
      section: '6.3',
      level: 'MUST',
      party: 'server',
      note: 'only the parameters in the request object are used',
    },
    oidcCore_6_1: {
      spec: 'OIDC Core',
      section: '6.1',
      level: 'MUST',
      party: 'server',
      note: 'values in the request object supersede the query parameters',
    },
    rfc8725_3_9: {
      spec: 'RFC 8725',
      section: '3.9',
      level: 'MUST',
      party: 'server',
      note: 'a JWT for another audience is rejected (RFC 9101 §10.8)',
    },
    rfc7519_4_1_4: {
      spec: 'RFC 7519',
      section: '4.1.4',
      level: 'MUST',
      party: 'server',
      note: 'the current time MUST be before exp',
    },
  },
  severity: 'high',
  appliesTo: 'oidc',
  requires: { roles: [ROLE], user: true, capabilities: CODE_FLOW_CAPABILITIES },
  catches: ['request-object-signature-unchecked', 'request-object-ignored'],
  async run(ctx) {
    const client = ctx.client(ROLE);
    const alg = requestObjectAlg(client);
    if (alg === undefined) return ctx.skip(`clients.${ROLE} has no privateJwk to sign a request object with`);
    if (ctx.target.discovery?.request_parameter_supported === false)
      return ctx.skip(
        'discovery says request_parameter_supported: false (OIDC Discovery §3), so no request object is taken',
      );
    const algs = advertisedAlgs(ctx);
    if (algs === undefined)
      return ctx.skip(
        'discovery has no request_object_signing_alg_values_supported, so no signed request object is offered',
      );
    if (!algs.includes(alg))
      return ctx.skip(
        `request_object_signing_alg_values_supported (${algs.join(', ') || 'empty'}) does not list ${alg}, the ` +
          `algorithm of clients.${ROLE}'s key`,
      );

    const audience = ctx.target.issuer;
    const send = async (label: string, objectOptions: RequestObjectOptions) => {
      const pkce = ctx.pkce.create();
      const objectState = `object-${ctx.random(8)}`;
      const objectNonce = ctx.random();
      const parameters = {
        response_type: 'code',
        client_id: client.clientId,
        ...(client.redirectUri === undefined ? {} : { redirect_uri: client.redirectUri }),
        scope: withOpenid(client.scope),
        state: objectState,
        nonce: objectNonce,
        code_challenge: pkce.challenge,
        code_challenge_method: pkce.method,
      };
      // OIDC Core §6.1: response_type, client_id and scope also outside; the query's state and nonce differ
      // from the object's, so the answer shows which won.
      const outcome = await ctx.authorize(
        ROLE,
        {
          scope: withOpenid(client.scope),
          state: `query-${ctx.random(8)}`,
          nonce: ctx.random(),
          code_challenge: pkce.challenge,
          code_challenge_method: pkce.method,
          request: requestObject(client, parameters, objectOptions),
        },
        { session: 'shared' },
      );
      ctx.evidence.note(`${label}: ${describeOutcome(outcome)}.`);
      return { outcome, objectState, objectNonce, verifier: pkce.verifier };
    };

    // The control: a sound signed object must be processed, or nothing the probes show can be put down to them.
    const sound = await send('A request object signed with the client key (control)', { audience });
    if (sound.outcome.kind !== 'redirect' || !sound.outcome.params.code) {
      throw new JudgementError(
        `a request object signed by clients.${ROLE} with ${alg} (listed in request_object_signing_alg_values_` +
          `supported) ${describeOutcome(sound.outcome)}, so the refusals of wrong ones cannot be told apart from it`,
      );
    }
    // A response without state is code.state-round-trip's to judge; the nonce below still shows which values won.
    if (sound.outcome.params.state === undefined)
      ctx.evidence.note('The code came back without state: which values won is judged by the ID token nonce alone.');
    else if (sound.outcome.params.state !== sound.objectState) {
      throw new CheckFailure(
        `The authorization request with a signed request object redirected with a code and state ` +
          `${JSON.stringify(sound.outcome.params.state)}` +
          `${sound.outcome.params.state === sound.outcome.request.state ? " (the query's)" : ''}, not the request ` +
          `object's: the query overrode it; RFC 9101 §6.3 requires only the request object's parameters to be used.`,
        { requirement: ctx.req.rfc9101_6_3, kind: 'refused-wrongly' },
      );
    }
    const tokens = await redeemOutcome(ctx, ROLE, sound.outcome, sound.verifier, 'the signed request object');
    const { claims } = idTokenOf(ctx, tokens, 'redeeming the code of the signed request object');
    if (claims.nonce !== sound.objectNonce) {
      throw new CheckFailure(
        `The ID token for the signed request object carries nonce ${JSON.stringify(claims.nonce)}, not the request ` +
          `object's; OIDC Core §6.1 requires the request object's values to supersede the query's.`,
        { requirement: ctx.req.oidcCore_6_1, kind: 'refused-wrongly' },
      );
    }

    const foreign = jwkOf(generateKeyPairFor(alg).privateKey);
    const kid = client.privateJwk?.kid;
    const probes: { name: string; options: RequestObjectOptions; per: RequirementRef }[] = [
      ...(algs.includes('none')
        ? []
        : [
            {
              name: 'an unsigned request object (alg none, not listed)',
              options: { audience, alg: 'none' as const },
              per: ctx.req.oidcCore_6_3_2,
            },
          ]),
      {
        name: 'a request object signed by a key the client never registered',
        options: { audience, signWith: { ...foreign, ...(typeof kid === 'string' ? { kid } : {}) } },
        per: ctx.req.rfc9101_6_2,
      },
      {
        name: 'a request object addressed to another audience',
        options: { audience: 'https://another-server.example.test' },
        per: ctx.req.rfc8725_3_9,
      },
      {
        name: 'a request object that expired five minutes ago',
        options: { audience, expiresIn: -300 },
        per: ctx.req.rfc7519_4_1_4,
      },
    ];
    if (algs.includes('none')) ctx.evidence.note('none is listed for request objects: an unsigned one is not probed.');
    for (const probe of probes) {
      const { outcome } = await send(`The request with ${probe.name}`, probe.options);
      await ctx.softly(() => expectRefused(outcome, probe.name, probe.per));
    }
  },
});

/** A request the server must refuse: any error (at the redirect_uri or on a page) does; a code does not. */
function expectRefused(outcome: AuthorizeResult, name: string, per: RequirementRef): void {
  const answer = authorizationAnswer(outcome, `The request with ${name}`);
  if (answer.kind === 'refused') return;
  throw new CheckFailure(
    `The authorization request with ${name} was answered with a code; ${per.label} requires the server to refuse ` +
      `it (OIDC Core §3.1.2.6: invalid_request_object).`,
    { requirement: per, kind: 'accepted' },
  );
}

import {
  CheckFailure,
  type Client,
  defineScenario,
  requestObject,
  type RequestObjectOptions,
  type RequirementRef,
  type ScenarioContext,
} from '../../harness/scenario/scenario.ts';
import {
  describeResponse,
  expectControl,
  findClient,
  KEYED_PAR_PROBE_REQUIRES,
  KEYED_PUSH_ROLES,
  pushTaken,
  soundPush,
} from '../checks/index.ts';

const keyed = (c: Client) => c.authMethod === 'private_key_jwt' && !!c.privateJwk && !!c.redirectUri;

/** Why request objects cannot be pushed here (discovery says so), or undefined. */
function requestObjectsNotTaken(ctx: ScenarioContext): string | undefined {
  if (ctx.target.discovery?.request_parameter_supported === false)
    return 'discovery says request_parameter_supported: false (OIDC Discovery §3), so no request object is taken';
  if (!Array.isArray(ctx.target.discovery?.request_object_signing_alg_values_supported))
    return 'discovery has no request_object_signing_alg_values_supported, so no signed request object is offered';
  return undefined;
}

export default defineScenario({
  id: 'request-object.lifetime',
  title:
    'A pushed request object living more than 60 minutes after its nbf, without nbf, or with nbf in the future is ' +
    'refused; one living 5 minutes from now is accepted',
  requirements: {
    // FAPI 2.0 Message Signing, "Requirements for authorization servers" of signing authorization requests: servers
    // implementing it "shall require the request object to contain an nbf claim that is no longer than 60 minutes in
    // the past" and "shall require the request object to contain an exp claim that has a lifetime of no longer than
    // 60 minutes after the nbf claim".
    fapi2ms_5_3_1_exp: {
      spec: 'FAPI 2.0 MS',
      section: '5.3.1',
      level: 'MUST',
      party: 'server',
      note: 'item 4: an exp claim no longer than 60 minutes after the nbf claim',
    },
    fapi2ms_5_3_1_nbf: {
      spec: 'FAPI 2.0 MS',
      section: '5.3.1',
      level: 'MUST',
      party: 'server',
      note: 'item 3: the request object contains an nbf claim no longer than 60 minutes in the past',
    },
    fapi2_5_3_2_1: {
      spec: 'FAPI 2.0 SP',
      section: '5.3.2.1',
      level: 'MUST',
      party: 'server',
      note: 'item 13: reject a JWT whose nbf is more than 60 seconds in the future',
    },
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  requires: KEYED_PAR_PROBE_REQUIRES,
  catches: ['request-object-long-lived'],
  async run(ctx) {
    const client =
      findClient(ctx, KEYED_PUSH_ROLES, keyed) ??
      ctx.skip(
        `no client of ${KEYED_PUSH_ROLES.join(' or ')} authenticates with private_key_jwt and has a privateJwk to ` +
          'sign with',
      );
    const notTaken = requestObjectsNotTaken(ctx);
    if (notTaken !== undefined) return ctx.skip(notTaken);
    const audience = ctx.target.issuer;
    const push = (label: string, options: Omit<RequestObjectOptions, 'audience'>) => {
      const sound = soundPush(ctx, client);
      const { client_assertion: _a, client_assertion_type: _t, ...parameters } = sound.fields;
      const form = { ...sound.fields, request: requestObject(client, parameters, { audience, ...options }) };
      return ctx.http.send({ method: 'POST', url: sound.url, headers: sound.headers, form, label });
    };
    let controlled: Promise<void> | undefined;
    const control = () => {
      controlled ??= soundObject();
      return controlled;
    };
    const soundObject = async () => {
      const label = 'a pushed request object with nbf now and exp 5 minutes later (control)';
      const res = await push(label, { notBeforeIn: 0, expiresIn: 300 });
      if (res.status !== 201 || !pushTaken(res))
        throw new CheckFailure(`${label} got ${describeResponse(res)}`, { requirement: ctx.req.fapi2ms_5_3_1_exp });
    };
    const probes: { name: string; options: Omit<RequestObjectOptions, 'audience'>; per: RequirementRef }[] = [
      {
        name: 'a request object with nbf now and exp 90 minutes later',
        options: { notBeforeIn: 0, expiresIn: 5400 },
        per: ctx.req.fapi2ms_5_3_1_exp,
      },
      {
        // An nbf more than 60 minutes past with an exp at most 60 minutes after it has expired: that half of the
        // sentence cannot be probed apart from exp, only that the nbf it asks for is there.
        name: 'a request object without nbf, its exp 5 minutes from now',
        options: { expiresIn: 300 },
        per: ctx.req.fapi2ms_5_3_1_nbf,
      },
      {
        name: 'a request object with nbf 5 minutes in the future and exp 5 minutes after it',
        options: { notBeforeIn: 300, expiresIn: 600 },
        per: ctx.req.fapi2_5_3_2_1,
      },
    ];
    for (const probe of probes) {
      const res = await push(`pushed request carrying ${probe.name}`, probe.options);
      await ctx.softly(async () => {
        const taken = pushTaken(res);
        if (taken) {
          throw new CheckFailure(
            `The PAR endpoint took ${probe.name} (as ${client.role}) with ${taken}; ${probe.per.label} requires ` +
              'the server to refuse it.',
            { requirement: probe.per },
          );
        }
        ctx.evidence.note(`${probe.name}: refused with ${describeResponse(res)}.`);
        await expectControl(`${probe.name} was refused`, 'the same with a 5-minute lifetime', control);
      });
    }
  },
});

import {
  CheckFailure,
  type Client,
  clientAssertion,
  defineScenario,
  type HttpResponse,
  requestObject,
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

/** A client authenticating with private_key_jwt whose private key is RSA: it can sign both PS256 and RS256. */
const rsaKeyed = (c: Client) => c.authMethod === 'private_key_jwt' && c.privateJwk?.kty === 'RSA' && !!c.redirectUri;

/** Whether discovery lists `alg` for request objects, and takes them at all. */
function requestObjectsTaken(ctx: ScenarioContext, alg: string): string | undefined {
  if (ctx.target.discovery?.request_parameter_supported === false)
    return 'discovery says request_parameter_supported: false (OIDC Discovery §3)';
  const listed = ctx.target.discovery?.request_object_signing_alg_values_supported;
  if (!Array.isArray(listed)) return 'discovery has no request_object_signing_alg_values_supported';
  if (!listed.includes(alg)) return `request_object_signing_alg_values_supported does not list ${alg}`;
  return undefined;
}

export default defineScenario({
  id: 'fapi2.rs256-refused',
  title:
    'Under FAPI 2.0, a pushed request authenticated by an RS256 client assertion, or carrying an RS256 request ' +
    'object, is refused; the same signed with PS256 is accepted',
  requirements: {
    // "Authorization servers, clients, and resource servers when creating or processing JWTs shall ... use PS256,
    // ES256, or EdDSA (using the Ed25519 variant) algorithms": the server processing a client assertion or a request
    // object is bound; RS256 (RSASSA-PKCS1-v1_5) is none of them.
    fapi2_5_4_1: {
      spec: 'FAPI 2.0 SP',
      section: '5.4.1',
      level: 'MUST',
      party: 'server',
      note: 'item 1.2: servers processing JWTs shall use PS256, ES256 or EdDSA (Ed25519) algorithms',
    },
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  requires: KEYED_PAR_PROBE_REQUIRES,
  catches: ['fapi2-accepts-rs256'],
  async run(ctx) {
    const client =
      findClient(ctx, KEYED_PUSH_ROLES, rsaKeyed) ??
      ctx.skip(
        `no client of ${KEYED_PUSH_ROLES.join(' or ')} authenticates with private_key_jwt using an RSA key (one ` +
          'that can sign both RS256 and PS256 under a key the server registered); give one an RSA privateJwk to ' +
          'judge this',
      );
    const audience = ctx.target.issuer;
    const push = async (label: string, assertionAlg: 'PS256' | 'RS256', objectAlg?: 'PS256' | 'RS256') => {
      const sound = soundPush(ctx, client);
      const fields: Record<string, string> = {
        ...sound.fields,
        client_assertion: clientAssertion(client, { audience, signingAlg: assertionAlg }),
      };
      if (objectAlg !== undefined) {
        const { client_assertion: _a, client_assertion_type: _t, ...parameters } = sound.fields;
        fields.request = requestObject(client, parameters, { audience, signingAlg: objectAlg, notBeforeIn: 0 });
      }
      return ctx.http.send({ method: 'POST', url: sound.url, headers: sound.headers, form: fields, label });
    };
    const expectRefused = (res: HttpResponse, what: string) => {
      const taken = pushTaken(res);
      if (taken) {
        throw new CheckFailure(
          `The PAR endpoint took ${what} (as ${client.role}) with ${taken}; ${ctx.req.fapi2_5_4_1.label} allows ` +
            'PS256, ES256 and EdDSA only.',
          { requirement: ctx.req.fapi2_5_4_1 },
        );
      }
      ctx.evidence.note(`${what}: refused with ${describeResponse(res)}.`);
    };
    const control = async (label: string, objectAlg?: 'PS256') => {
      const res = await push(label, 'PS256', objectAlg);
      if (!pushTaken(res) || res.status !== 201)
        throw new CheckFailure(`${label} got ${describeResponse(res)}`, { requirement: ctx.req.fapi2_5_4_1 });
    };

    const assertion = 'a pushed request authenticated by a client assertion signed with RS256';
    const byAssertion = await push(assertion, 'RS256');
    await ctx.softly(async () => {
      expectRefused(byAssertion, assertion);
      await expectControl(`${assertion} was refused`, 'the same with a PS256 assertion', () =>
        control('a pushed request authenticated by a PS256 client assertion (control)'),
      );
    });

    const notTaken = requestObjectsTaken(ctx, 'PS256');
    if (notTaken !== undefined) {
      ctx.evidence.note(`No RS256 request object was pushed: ${notTaken}.`);
      return;
    }
    const object = 'a pushed request carrying a request object signed with RS256 (its client assertion PS256)';
    const byObject = await push(object, 'PS256', 'RS256');
    await ctx.softly(async () => {
      expectRefused(byObject, object);
      await expectControl(`${object} was refused`, 'the same with a PS256 request object', () =>
        control('a pushed request carrying a PS256 request object (control)', 'PS256'),
      );
    });
  },
});

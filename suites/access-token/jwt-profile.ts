import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import {
  ACCESS_TOKEN_JWT_CLAIMS,
  accessTokenClaimWellTyped,
  compactJwsParts,
  isAccessTokenJwtTyp,
} from '../../protocol/jwt-profiles.ts';
import { ASYMMETRIC_ALGS } from '../../protocol/jws.ts';
import { CODE_FLOW_CAPABILITIES } from '../checks/index.ts';
import { askForJwtAccessToken } from '../checks/token-acceptance.ts';
import { isOneOf, keysOf } from '../../protocol/guards.ts';

const ROLE = 'confidential';

/** The algorithms discovery lists for anything the server signs (`*_signing_alg_values_supported`). */
function advertisedSigningAlgs(discovery: Record<string, unknown> | null | undefined): string[] {
  const fields = Object.entries(discovery ?? {}).filter(([name]) => name.endsWith('_signing_alg_values_supported'));
  return [...new Set(fields.flatMap(([, v]) => (Array.isArray(v) ? v.filter((a) => typeof a === 'string') : [])))];
}

export default defineScenario({
  id: 'access-token.jwt-profile',
  title:
    'A JWT access token follows RFC 9068: typ at+jwt; iss (the issuer), exp, aud, sub, client_id, iat and jti ' +
    'present and well typed; signed, never with none, verifying with a key of the JWKS',
  requirements: {
    rfc9068_2_1: {
      spec: 'RFC 9068',
      section: '2.1',
      level: 'MUST',
      party: 'server',
      note: 'typ at+jwt; signed, never with none',
    },
    rfc9068_2_1_asymmetric: {
      spec: 'RFC 9068',
      section: '2.1',
      level: 'SHOULD',
      party: 'server',
      note: 'asymmetric signatures are RECOMMENDED',
    },
    rfc9068_2_2: {
      spec: 'RFC 9068',
      section: '2.2',
      level: 'MUST',
      party: 'server',
      note: 'iss (the issuer), exp, aud, sub, client_id, iat and jti are REQUIRED',
    },
    rfc9068_4: {
      spec: 'RFC 9068',
      section: '4',
      level: 'MUST',
      party: 'server',
      // The sentence binds resource servers; a token no published key verifies is refused by all of them.
      note: 'resource servers verify the signature with the keys at jwks_uri',
    },
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  requires: { roles: [ROLE], optionalRoles: ['machine'], user: true, capabilities: CODE_FLOW_CAPABILITIES },
  catches: ['at-jwt-wrong-typ'],
  async run(ctx) {
    // The code flow's access token; where it is opaque, asked for with the client's resource (RFC 8707), then the
    // machine client's, plain and with its resource or audience: a server may issue JWTs only for its resource
    // servers.
    const asked = await askForJwtAccessToken(ctx, (token) => Boolean(compactJwsParts(token)));
    const jws = 'token' in asked ? compactJwsParts(asked.token) : undefined;
    if (!('token' in asked) || !jws)
      return ctx.skip(
        `no access token is a JWS in compact serialization (tried: ${'tried' in asked ? asked.tried.join('; ') : ''})` +
          '; RFC 9068 applies where the server issues JWT access tokens',
      );
    const found = { token: asked.token, what: asked.what, parts: jws };
    const { token, parts } = found;
    const { header, payload } = parts;
    const alg = String(header.alg);
    ctx.evidence.note(
      `The access token of ${found.what} is a JWS: typ ${JSON.stringify(header.typ)}, alg ${alg}, claims ` +
        `${Object.keys(payload).join(', ')}.`,
    );

    await ctx.softly(() => {
      if (isAccessTokenJwtTyp(header.typ)) return;
      const typ = header.typ === undefined ? '(absent)' : JSON.stringify(header.typ);
      throw new CheckFailure(
        `The JWT access token's header has typ ${typ}; ` +
          'RFC 9068 §2.1 requires the media type at+jwt (or application/at+jwt) in typ.',
        { requirement: ctx.req.rfc9068_2_1, kind: 'refused-wrongly' },
      );
    });

    const wrong = keysOf(ACCESS_TOKEN_JWT_CLAIMS).flatMap((name) =>
      accessTokenClaimWellTyped(name, payload[name])
        ? []
        : [`${name} ${payload[name] === undefined ? 'absent' : `is ${JSON.stringify(payload[name])}`}`],
    );
    if (typeof payload.iss === 'string' && payload.iss !== ctx.target.issuer)
      wrong.push(`iss is ${JSON.stringify(payload.iss)}, not the issuer ${JSON.stringify(ctx.target.issuer)}`);
    if (wrong.length > 0) {
      await ctx.softly(() => {
        throw new CheckFailure(
          `The JWT access token's claims are wrong: ${wrong.join('; ')}; RFC 9068 §2.2 requires iss (the issuer ` +
            'identifier), exp and iat (NumericDate), aud, sub, client_id and jti.',
          { requirement: ctx.req.rfc9068_2_2, kind: 'refused-wrongly' },
        );
      });
    }

    if (alg.toLowerCase() === 'none') {
      throw new CheckFailure(
        'The JWT access token is unsecured (alg none); RFC 9068 §2.1 requires it to be signed and forbids none.',
        { requirement: ctx.req.rfc9068_2_1, kind: 'accepted' },
      );
    }
    const advertised = advertisedSigningAlgs(ctx.target.discovery);
    ctx.evidence.note(
      `alg ${alg} ${advertised.includes(alg) ? 'is' : 'is not'} among the signing algorithms the metadata lists ` +
        `(${advertised.join(', ') || 'none listed'}); no metadata field names the access token's own.`,
    );
    if (!isOneOf(ASYMMETRIC_ALGS, alg)) {
      throw new CheckFailure(
        `The JWT access token is signed with ${alg}, not an asymmetric algorithm, so no resource server can verify ` +
          "it with the server's published keys; RFC 9068 §2.1 recommends asymmetric signatures.",
        { requirement: ctx.req.rfc9068_2_1_asymmetric, kind: 'refused-wrongly' },
      );
    }
    const why = await ctx.jwt.jwksVerifies(token, ASYMMETRIC_ALGS);
    if (why !== undefined) {
      throw new CheckFailure(
        `The JWT access token (alg ${alg}) does not verify with the JWKS: ${why}; RFC 9068 §4 has resource servers ` +
          'validate it with the keys the authorization server publishes.',
        { requirement: ctx.req.rfc9068_4, kind: 'refused-wrongly' },
      );
    }
  },
});

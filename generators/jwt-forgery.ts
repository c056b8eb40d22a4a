/**
 * Forged JWTs drawn from one genuine token and the server's JWKS: every attack of jwt-tamper.ts
 * in its variants, labelled with kind, variant and a sentence for the report. Forgeries with a
 * fixed set of variants are signed once per construction, so sampling stays cheap.
 */
import type { JsonWebKey } from 'node:crypto';
import fc from 'fast-check';
import { attackerKeyFor, type AttackerKey } from './attacker-keys.ts';
import { decodeJws, type JsonObject } from './jws.ts';
import {
  ALG_NONE_SPELLINGS,
  KID_INJECTIONS,
  forgeAlgNone,
  forgeChangedSignature,
  forgeClaimsChanged,
  forgeEmbeddedJwk,
  forgeHs256KeyConfusion,
  forgeJku,
  forgeKidInjection,
  forgeStrippedSignature,
  forgeX5u,
  keyConfusionSecrets,
} from './jwt-tamper.ts';

export const JWT_FORGERY_KINDS = [
  'alg-none',
  'hs256-key-confusion',
  'signature-stripped',
  'signature-changed',
  'claims-changed',
  'kid-injection',
  'embedded-jwk',
  'jku',
  'x5u',
] as const;
export type JwtForgeryKind = (typeof JWT_FORGERY_KINDS)[number];

export interface ForgedJwt {
  kind: JwtForgeryKind;
  /** Which form of the kind: the spelling, the secret encoding, the claim, the kid value... */
  variant: string;
  token: string;
  description: string;
}

export type Jwks = { keys: readonly JsonWebKey[] } | readonly JsonWebKey[];

export interface JwtForgeryOptions {
  /** Where jku / x5u point (default `https://attacker.example.test/jwks.json`). */
  attackerUrl?: string;
  /** The attacker's key (default: a fixed key of the genuine token's alg family, see attacker-keys.ts). */
  attackerKey?: AttackerKey;
  kinds?: readonly JwtForgeryKind[];
}

export const DEFAULT_ATTACKER_URL = 'https://attacker.example.test/jwks.json';

type Variant = Omit<ForgedJwt, 'kind'>;
interface Context {
  token: string;
  header: JsonObject;
  payload: JsonObject;
  jwks: readonly JsonWebKey[];
  attackerUrl: string;
  attackerKey: AttackerKey;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The public keys the server would use for this token: those with its kid, else every signing key. */
function verificationKeys(jwks: readonly JsonWebKey[], kid: unknown): JsonWebKey[] {
  const signing = jwks.filter((k) => ['RSA', 'EC', 'OKP'].includes(String(k.kty)) && k.use !== 'enc');
  const byKid = signing.filter((k) => k.kid !== undefined && k.kid === kid);
  return byKid.length > 0 ? byKid : signing;
}

/** The kid a re-signed token carries: the attacker's, the genuine one (if any), or none. */
function kidChoices(ctx: Context): { variant: string; kid: string | null }[] {
  const choices: { variant: string; kid: string | null }[] = [
    { variant: 'attacker-kid', kid: ctx.attackerKey.kid },
    { variant: 'no-kid', kid: null },
  ];
  if (typeof ctx.header.kid === 'string') choices.push({ variant: 'original-kid', kid: ctx.header.kid });
  return choices;
}

/** Claims worth changing, each with values that differ from the genuine ones (RFC 7519 §4.1, RFC 9068 §2.2). */
function claimChanges(ctx: Context): [string, unknown[]][] {
  const { payload } = ctx;
  const candidates: [string, unknown[]][] = [
    ['sub', ['admin', 'root', `${String(payload.sub)}-other`]],
    ['scope', typeof payload.scope === 'string' ? [`${payload.scope} admin`, 'admin', '*'] : ['admin']],
    ['exp', typeof payload.exp === 'number' ? [payload.exp + 315_360_000, 4_102_444_800] : [4_102_444_800]],
    ['aud', ['attacker-client', [...[payload.aud ?? []].flat(), 'attacker-client']]],
    ['iss', [new URL(ctx.attackerUrl).origin]],
    ['client_id', ['attacker-client']],
  ];
  return candidates
    .map(([claim, values]): [string, unknown[]] => [claim, values.filter((v) => !same(v, payload[claim]))])
    .filter(([, values]) => values.length > 0);
}

const constants = (variants: Variant[]): fc.Arbitrary<Variant> | undefined =>
  variants.length > 0 ? fc.constantFrom(...variants) : undefined;

const FORGERIES: Record<JwtForgeryKind, (ctx: Context) => fc.Arbitrary<Variant> | undefined> = {
  // RFC 8725 §3.1, RFC 7519 §6: an unsecured JWT must not be accepted where a signed one is expected.
  'alg-none': ({ token }) =>
    constants(
      ALG_NONE_SPELLINGS.flatMap((spelling) =>
        [false, true].map((keep) => ({
          variant: `${spelling}/${keep ? 'original-signature' : 'empty-signature'}`,
          token: forgeAlgNone(token, spelling, keep),
          description: `header alg "${spelling}" with ${keep ? 'the original signature kept' : 'an empty signature'}`,
        })),
      ),
    ),
  // RFC 8725 §2.1, §3.1: HS256 keyed with the public key must not verify.
  'hs256-key-confusion': ({ token, header, jwks }) =>
    constants(
      verificationKeys(jwks, header.kid).flatMap((jwk) =>
        keyConfusionSecrets(jwk).map(({ encoding, secret }) => ({
          variant: encoding,
          token: forgeHs256KeyConfusion(token, secret),
          description: `HS256 signed with the public key ${String(jwk.kid ?? jwk.kty)} as the secret (${encoding})`,
        })),
      ),
    ),
  // RFC 7515 §5.2: a JWS without a valid signature is invalid.
  'signature-stripped': ({ token }) =>
    constants(
      [false, true].map((drop) => ({
        variant: drop ? 'no-signature-segment' : 'empty-signature',
        token: forgeStrippedSignature(token, drop),
        description: drop ? 'the signature segment removed (header.payload)' : 'an empty signature (header.payload.)',
      })),
    ),
  'signature-changed': ({ token }) => {
    const bits = Buffer.from(decodeJws(token).segments[2], 'base64url').length * 8;
    return bits === 0
      ? undefined
      : fc.nat({ max: bits - 1 }).map((bit) => ({
          variant: `bit-${bit}`,
          token: forgeChangedSignature(token, bit),
          description: `signature bit ${bit} flipped`,
        }));
  },
  'claims-changed': (ctx) => {
    const changes = claimChanges(ctx);
    return changes.length === 0
      ? undefined
      : fc.oneof(
          ...changes.map(([claim, values]) =>
            fc.constantFrom(...values).map((value) => ({
              variant: claim,
              token: forgeClaimsChanged(ctx.token, { [claim]: value }),
              description: `${claim} changed to ${JSON.stringify(value)}, original signature kept`,
            })),
          ),
        );
  },
  // RFC 8725 §3.10: kid is attacker input; a lookup by kid must not be injectable.
  'kid-injection': ({ token, attackerKey }) =>
    constants(
      KID_INJECTIONS.map(({ variant, kid, hmacSecret }) => ({
        variant,
        token: forgeKidInjection(
          token,
          kid,
          hmacSecret === undefined ? attackerKey : { alg: 'HS256', key: Buffer.from(hmacSecret) },
        ),
        description:
          `kid ${JSON.stringify(kid)}, ` +
          `signed ${
            hmacSecret === undefined
              ? `by the attacker's ${attackerKey.alg} key`
              : `HS256 with secret ${JSON.stringify(hmacSecret)}`
          }`,
      })),
    ),
  // RFC 8725 §3.10: keys named by the token itself (jwk, jku, x5u) must not be trusted.
  'embedded-jwk': (ctx) =>
    constants(
      kidChoices(ctx).map(({ variant, kid }) => ({
        variant,
        token: forgeEmbeddedJwk(ctx.token, ctx.attackerKey, kid),
        description: `signed by the attacker's key, embedded in the header jwk (${variant})`,
      })),
    ),
  jku: (ctx) =>
    constants(
      kidChoices(ctx).map(({ variant, kid }) => ({
        variant,
        token: forgeJku(ctx.token, ctx.attackerKey, ctx.attackerUrl, kid),
        description: `signed by the attacker's key, header jku ${ctx.attackerUrl} (${variant})`,
      })),
    ),
  x5u: (ctx) =>
    constants(
      kidChoices(ctx).map(({ variant, kid }) => ({
        variant,
        token: forgeX5u(ctx.token, ctx.attackerKey, ctx.attackerUrl, kid),
        description: `signed by the attacker's key, header x5u ${ctx.attackerUrl} (${variant})`,
      })),
    ),
};

/** Forgeries of the genuine `token`, given the server's public JWKS. */
export function jwtForgery(token: string, jwks: Jwks, options: JwtForgeryOptions = {}): fc.Arbitrary<ForgedJwt> {
  const { header, payload } = decodeJws(token);
  const ctx: Context = {
    token,
    header,
    payload,
    jwks: Array.isArray(jwks) ? jwks : (jwks as { keys: readonly JsonWebKey[] }).keys,
    attackerUrl: options.attackerUrl ?? DEFAULT_ATTACKER_URL,
    attackerKey: options.attackerKey ?? attackerKeyFor(String(header.alg)),
  };
  const kinds = options.kinds ?? JWT_FORGERY_KINDS;
  const arbitraries = kinds.flatMap((kind) => {
    const arb = FORGERIES[kind](ctx);
    return arb ? [arb.map((v): ForgedJwt => ({ kind, ...v }))] : [];
  });
  if (arbitraries.length === 0) throw new Error(`no forgery of [${kinds.join(', ')}] applies to this token and JWKS`);
  return fc.oneof(...arbitraries);
}

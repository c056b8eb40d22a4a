/**
 * The attacker's signing keys for forged JWTs (RFC 8725 §2.1, §3.10): fixed and public, so forged
 * tokens are the same for the same seed and no RSA key is generated per sample. EC and Ed25519
 * keys are derived from fixed labels; the RSA key is a constant. NEVER trust these keys.
 */
import {
  createECDH,
  createHash,
  createPrivateKey,
  createPublicKey,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';
import type { JwsSigner } from './jws.ts';

export interface AttackerKey extends JwsSigner {
  kid: string;
  key: KeyObject;
  /** The public half as a JWK with kid, alg and use: what the attacker embeds or hosts. */
  publicJwk: JsonWebKey;
}

/** A publicly known RSA-2048 key (generated once for this project; its private half is right here). */
const ATTACKER_RSA: JsonWebKey = {
  kty: 'RSA',
  n:
    'uINqYvwwiVL5JidZ_hz3A68iDOMLju0vLOfFK_XUBEvB9t0NDWh_jhaMbD0-p_db-emxx1Cq36no9LRy9w1XvbXS' +
    'orwickG5PPyy_bfpCCqVJUWfFadEoGgvy3th4qG_bukBEx09xW-gb13KpJSoaW4bgT2EYciFW8t-WNEdjupLGbQh' +
    'YOfoy2lnLW8tniwIPbQ43TDZxGSYVDjrBXy7Mp58adtXEjEhEemw6VRYB2ycmKzPgowdyzEPdwWSP248POqj7XQx' +
    'apqGARHU_e9mC8y1J00xNrVydex181bQExEIYy-6_YCxqtK2Ub8Y1TD8bsXmvmUIUBH_uKKKw_CW7Q',
  e: 'AQAB',
  d:
    'BYvDYP-3QJ3-jkoHFShmAXWg3DzfY-xAS3diO_J1Nj6zjIVKaZKeFlDRMI8c_XBTgGiEPd_eIK17KqDrmNmxrQX0' +
    'fLElh1aBiCR2mfjXmdo8qtSPUWoDh59Vf0r19hl8gouhgeySXb4kMoJ0MYw26NDruCacNVJ-7DyzvRP4leah1fal' +
    'AigT4eWbeH_xxgneDXoY4KkArdgusOh7i3F1xjjbq26G1MmN6VKofNKwYwMJqAuY5URfHOmaSrNJ1ZeWXYp747eI' +
    'gOXrxLJ8HkalNhnUtdkXc1nOCQsknZHmPfS1T-WciI772cpiftp75ArxwV38j5wYflJqW0ddNifeNQ',
  p:
    '6AN5B1WLAjzXbiV798B1TOn7UvDINW9SgLvpiHvTjYrx4jn3aVRJ2HZ_I0XhAmCYnkqMOlFoums5V2w00eaB9Axv' +
    'audzgIh2mCE-T7wVB6pAYvUCnaa6aCFl8qb-lmusf78yJOe6lxro0VRsDCQH4m5mjnzttVec2t14MqB3j7M',
  q:
    'y5bKVqGHOZXSRepgfRqshwU1L3S2vXipBBbixgC9T-5dIym4OngtS9W7E_jF9gW8T0u3ycAAmkq6gBohf2IwJP20' +
    'pUpAFQaCv-GmX-W5doMXLbhEbfcnNpduVEWc2WkTIFEH-5RJTw7ChFf2xmilf40wN1q5A5q2qpYQTrIG7t8',
  dp:
    'L7UnGd75KoigM8H5b8RfWmVyjGd-g55UdKwvJSVxJtW_TylkOoBefug-1F32GqsKNuJVW1iKFGsf614QrmibqDc2' +
    'YeEd2vw0hquvSG4AVQcpHjALTaePBQJ5GCBGkV-qpMoH4ZbUw2WBIiod3ZE7HdBdvkbqCjPtyQNpR9-_Ngk',
  dq:
    'jhcT6RqbcklqlHlcFnSDbUjpMdHXqK2J6NzAMUla12qZfm0js0sk8gSdqPa701V1dDJ4d0qWIRl-yOFz95_j0i1v' +
    '4tzLlOESaDFpGQ0QP_KGPtaYi9cvex59VjuvmN2JB8kGNUPtVkwK3qs2BIwM1dUIjdm3vxg_3RcXEpWV2Sk',
  qi:
    'cw01zprsFebk0Gl2mivmIC9u7QarK36jEUlv0IdxH5roNtoKEpcOt0SbDUBh6wq0kaxN0gOAruDYFzz2UXThEd1o' +
    'ZXEyLmE4cM72pOTJOW3XwSwrxfZL0_e6GzQ05h9dH4D0BhnE3GineDh6R4_XLa20jzimAb5J6TcxTu9G5j0',
};

const EC_CURVES: Record<string, { crv: string; openssl: string; bytes: number }> = {
  ES256: { crv: 'P-256', openssl: 'prime256v1', bytes: 32 },
  ES384: { crv: 'P-384', openssl: 'secp384r1', bytes: 48 },
  ES512: { crv: 'P-521', openssl: 'secp521r1', bytes: 66 },
};

const seedOf = (label: string, bytes: number): Buffer => {
  const digest = createHash('sha512').update(`idp-conformance attacker ${label}`).digest();
  return Buffer.concat([Buffer.alloc(Math.max(0, bytes - digest.length)), digest]).subarray(0, bytes);
};

function ecPrivateJwk(curve: { crv: string; openssl: string; bytes: number }): JsonWebKey {
  const d = seedOf(curve.crv, curve.bytes);
  const ecdh = createECDH(curve.openssl);
  ecdh.setPrivateKey(d);
  const point = ecdh.getPublicKey(); // 0x04 || x || y
  const x = point.subarray(1, 1 + curve.bytes);
  const y = point.subarray(1 + curve.bytes);
  return {
    kty: 'EC',
    crv: curve.crv,
    d: d.toString('base64url'),
    x: x.toString('base64url'),
    y: y.toString('base64url'),
  };
}

function ed25519PrivateKey(): KeyObject {
  const pkcs8Prefix = Buffer.from('302e020100300506032b657004220420', 'hex'); // RFC 8410 §7 OneAsymmetricKey
  return createPrivateKey({ key: Buffer.concat([pkcs8Prefix, seedOf('Ed25519', 32)]), format: 'der', type: 'pkcs8' });
}

function privateKeyFor(alg: string): KeyObject {
  if (/^(RS|PS)(256|384|512)$/.test(alg)) return createPrivateKey({ key: ATTACKER_RSA, format: 'jwk' });
  if (alg === 'EdDSA' || alg === 'Ed25519') return ed25519PrivateKey();
  const curve = EC_CURVES[alg];
  if (!curve) throw new Error(`no attacker key for alg ${alg}`);
  return createPrivateKey({ key: ecPrivateJwk(curve), format: 'jwk' });
}

const cache = new Map<string, AttackerKey>();

/**
 * An attacker key that can sign with `alg` (RS*, PS*, ES*, EdDSA), so a forged token passes an
 * alg allow-list that accepts the genuine token's alg; other algs (HS*, none) get ES256.
 */
export function attackerKeyFor(alg: string): AttackerKey {
  const usable = /^(RS|PS|ES)(256|384|512)$|^EdDSA$|^Ed25519$/.test(alg) ? alg : 'ES256';
  let key = cache.get(usable);
  if (!key) {
    const privateKey = privateKeyFor(usable);
    const kid = `attacker-${usable.toLowerCase()}`;
    const publicJwk = { ...createPublicKey(privateKey).export({ format: 'jwk' }), kid, alg: usable, use: 'sig' };
    key = { alg: usable, kid, key: privateKey, publicJwk };
    cache.set(usable, key);
  }
  return key;
}

/** The JWKS an attacker would host at a `jku` URL. */
export function attackerJwks(...keys: AttackerKey[]): { keys: JsonWebKey[] } {
  return { keys: keys.map((k) => k.publicJwk) };
}

import { CheckFailure, defineScenario } from '../../harness/scenario.ts';

/** Private (RSA, EC, OKP) and symmetric (oct) key members of a JWK (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

export default defineScenario({
  id: 'jwks.public-keys-only',
  title: 'The JWKS holds public keys only, each with kty and kid',
  requirements: [
    { spec: 'RFC 7517', section: '5', level: 'MUST', note: 'a JWK Set has a "keys" array' },
    { spec: 'RFC 7517', section: '4', level: 'MUST', note: 'every JWK has kty' },
    { spec: 'OIDC Discovery', section: '3', level: 'MUST', note: 'jwks_uri: no private or symmetric key values' },
    { spec: 'SPEC', section: 'Key set', level: 'MUST', note: 'keys are selected by kid' },
    { spec: 'OIDC Core', section: '10.1', level: 'MUST', note: 'kid when the set holds several keys' },
  ],
  severity: 'critical',
  requires: { capabilities: ['endpoint:jwks'] },
  catches: ['jwks-leaks-private'],
  async run(ctx) {
    const { keys } = await ctx.jwt.jwks(); // a response without a "keys" array fails here (RFC 7517 §5)
    const uri = ctx.target.endpoints.jwks;
    if (keys.length === 0) {
      throw new CheckFailure(`The JWKS at ${uri} has no keys; OIDC Discovery §3 requires jwks_uri to hold the keys that verify the OP's signatures.`, { requirement: 'OIDC Discovery §3' });
    }
    const entries = keys.map((key, i) => ({ key: key as Record<string, unknown>, name: typeof key.kid === 'string' ? `key "${key.kid}"` : `key #${i + 1}` }));

    const leaks = entries.flatMap(({ key, name }) => {
      const members = PRIVATE_MEMBERS.filter((m) => key[m] !== undefined);
      const symmetric = key.kty === 'oct' ? ['kty "oct"'] : [];
      return members.length || symmetric.length ? [`${name}: ${[...symmetric, ...members].join(', ')}`] : [];
    });
    await ctx.softly(() => {
      if (leaks.length) {
        throw new CheckFailure(`The JWKS at ${uri} publishes private or symmetric key material (${leaks.join('; ')}); OIDC Discovery §3 requires that the JWK Set contain no private or symmetric key values.`, { requirement: 'OIDC Discovery §3' });
      }
    });

    const noKty = entries.filter(({ key }) => typeof key.kty !== 'string' || !key.kty).map(({ name }) => name);
    await ctx.softly(() => {
      if (noKty.length) {
        throw new CheckFailure(`The JWKS at ${uri} has keys without kty (${noKty.join(', ')}); RFC 7517 §4.1 requires kty in every JWK.`, { requirement: 'RFC 7517 §4' });
      }
    });

    const noKid = entries.filter(({ key }) => typeof key.kid !== 'string' || !key.kid).map(({ name }) => name);
    // kid is optional in RFC 7517 §4.5; the SPEC selects keys by kid, and OIDC Core §10.1 needs it once there are several keys.
    const requirement = ctx.profile === 'spec' ? 'SPEC › Key set' : keys.length > 1 ? 'OIDC Core §10.1' : undefined;
    if (noKid.length && requirement) {
      const per = requirement === 'SPEC › Key set' ? 'the SPEC selects keys by kid' : `OIDC Core §10.1 requires a kid to choose among the ${keys.length} keys`;
      throw new CheckFailure(`The JWKS at ${uri} has keys without kid (${noKid.join(', ')}); ${per}.`, { requirement });
    }
  },
});

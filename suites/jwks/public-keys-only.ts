import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import { PRIVATE_JWK_MEMBERS as PRIVATE_MEMBERS } from '../../protocol/jwk.ts';

export default defineScenario({
  id: 'jwks.public-keys-only',
  title: 'The JWKS holds public keys only, each with kty and kid',
  requirements: {
    rfc7517_5: { spec: 'RFC 7517', section: '5', level: 'MUST', party: 'server', note: 'a JWK Set has a "keys" array' },
    rfc7517_4: { spec: 'RFC 7517', section: '4', level: 'MUST', party: 'server', note: 'every JWK has kty' },
    oidcDiscovery_3: {
      spec: 'OIDC Discovery',
      section: '3',
      level: 'MUST',
      party: 'server',
      note: 'jwks_uri: no private or symmetric key values',
    },
    specKeySet: { spec: 'SPEC', section: 'Key set', level: 'MUST', party: 'server', note: 'keys are selected by kid' },
    oidcCore_10_1: {
      spec: 'OIDC Core',
      section: '10.1',
      level: 'MUST',
      party: 'server',
      note: 'kid when the set holds several keys',
    },
  },
  severity: 'critical',
  appliesTo: 'oauth2',
  requires: { capabilities: ['endpoint:jwks'] },
  catches: ['jwks-leaks-private'],
  async run(ctx) {
    const { keys } = await ctx.jwt.jwks(); // a response without a "keys" array fails here (RFC 7517 §5)
    const uri = ctx.target.endpoints.jwks;
    if (keys.length === 0) {
      throw new CheckFailure(
        `The JWKS at ${uri} has no keys; OIDC Discovery §3 requires jwks_uri to hold the keys that verify the OP's ` +
          `signatures.`,
        { requirement: ctx.req.oidcDiscovery_3, kind: 'refused-wrongly' },
      );
    }
    const entries = keys.map((key, i) => ({
      key,
      name: typeof key.kid === 'string' ? `key "${key.kid}"` : `key #${i + 1}`,
    }));

    const leaks = entries.flatMap(({ key, name }) => {
      const members = PRIVATE_MEMBERS.filter((m) => key[m] !== undefined);
      const symmetric = key.kty === 'oct' ? ['kty "oct"'] : [];
      return members.length || symmetric.length ? [`${name}: ${[...symmetric, ...members].join(', ')}`] : [];
    });
    await ctx.softly(() => {
      if (leaks.length) {
        throw new CheckFailure(
          `The JWKS at ${uri} publishes private or symmetric key material (${leaks.join('; ')}); OIDC Discovery §3 ` +
            `requires that the JWK Set contain no private or symmetric key values.`,
          { requirement: ctx.req.oidcDiscovery_3 },
        );
      }
    });

    const noKty = entries.filter(({ key }) => typeof key.kty !== 'string' || !key.kty).map(({ name }) => name);
    await ctx.softly(() => {
      if (noKty.length) {
        throw new CheckFailure(
          `The JWKS at ${uri} has keys without kty (${noKty.join(', ')}); RFC 7517 §4.1 requires kty in every JWK.`,
          { requirement: ctx.req.rfc7517_4, kind: 'refused-wrongly' },
        );
      }
    });

    const noKid = entries.filter(({ key }) => typeof key.kid !== 'string' || !key.kid).map(({ name }) => name);
    // kid is optional in RFC 7517 §4.5; the SPEC selects keys by kid, and OIDC Core §10.1 needs it once there are
    // several keys.
    const requirement =
      ctx.profile === 'spec' ? ctx.req.specKeySet : keys.length > 1 ? ctx.req.oidcCore_10_1 : undefined;
    if (noKid.length && requirement) {
      const per =
        requirement === ctx.req.specKeySet
          ? 'the SPEC selects keys by kid'
          : `OIDC Core §10.1 requires a kid to choose among the ${keys.length} keys`;
      throw new CheckFailure(`The JWKS at ${uri} has keys without kid (${noKid.join(', ')}); ${per}.`, {
        requirement,
        kind: 'refused-wrongly',
      });
    }
  },
});

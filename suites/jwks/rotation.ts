import { CheckFailure, PreconditionError, defineScenario } from '../../harness/scenario/scenario.ts';
import { CODE_FLOW_CAPABILITIES, signIn } from '../checks/index.ts';

export default defineScenario({
  id: 'jwks.rotation',
  title:
    'After a key rotation, new ID tokens carry a kid found in the refreshed JWKS, and ID tokens signed before ' +
    'still verify',
  requirements: {
    oidcCore_10_1_1: {
      spec: 'OIDC Core',
      section: '10.1.1',
      level: 'MUST',
      party: 'server',
      note: 'a new signing key is published in the JWKS and named by kid',
    },
    oidcCore_10_1_1_retained: {
      spec: 'OIDC Core',
      section: '10.1.1',
      level: 'SHOULD',
      party: 'server',
      note: 'recently decommissioned keys are retained in the JWKS',
    },
  },
  severity: 'high',
  appliesTo: 'oidc',
  requires: { roles: ['confidential'], user: true, capabilities: [...CODE_FLOW_CAPABILITIES, 'endpoint:jwks'] },
  catches: ['rotation-drops-old-key', 'id-token-unknown-kid'],
  // A rotation changes what every other scenario's JWKS should hold: it runs alone.
  exclusive: true,
  async run(ctx) {
    const rotate = ctx.hooks.rotateKeys;
    if (!rotate)
      return ctx.skip(
        'hooks.rotateKeys is not configured (a URL to POST to, or a command, that makes the IdP rotate its ' +
          'signing key)',
      );
    const before = await signIn(ctx, 'confidential');
    const oldKid = ctx.jwt.decode(before.idToken).header.kid;
    await rotate();
    const after = await signIn(ctx, 'confidential');
    const newKid = ctx.jwt.decode(after.idToken).header.kid;
    if (newKid === undefined || newKid === oldKid) {
      throw new PreconditionError(
        `after the rotation hook, new ID tokens still carry kid ${JSON.stringify(newKid)} (as before it): the IdP ` +
          `has not started signing with a new key, so there is no rotation to judge`,
      );
    }
    const jwks = await ctx.jwt.jwks({ fresh: true });
    const kids = jwks.keys.map((k) => k.kid);
    if (!kids.includes(newKid)) {
      throw new CheckFailure(
        `After the rotation, ID tokens carry kid ${JSON.stringify(newKid)}, which the refreshed JWKS ` +
          `(kids ${JSON.stringify(kids)}) does not hold; OIDC Core §10.1.1 requires the new key to be published ` +
          `at jwks_uri.`,
        { requirement: ctx.req.oidcCore_10_1_1, kind: 'refused-wrongly' },
      );
    }
    await ctx.jwt.verifyIdTokenSignature(after.idToken);
    const retained = ctx.req.oidcCore_10_1_1_retained;
    await ctx.softly(
      async () => {
        if (!kids.includes(oldKid)) {
          throw new CheckFailure(
            `After the rotation the JWKS (kids ${JSON.stringify(kids)}) no longer holds ` +
              `kid ${JSON.stringify(oldKid)}, which signed an ID token that has not expired; OIDC Core §10.1.1 says ` +
              `recently decommissioned signing keys SHOULD stay published, or tokens issued a moment ago ` +
              `fail to verify.`,
            { requirement: retained, kind: 'refused-wrongly' },
          );
        }
        await ctx.jwt.verifyIdTokenSignature(before.idToken);
      },
      { requirement: retained },
    );
  },
});

import { defineScenario } from '../../harness/scenario/scenario.ts';
import { FORGERY_REQUIRES, expectForgeriesRefused } from '../checks/index.ts';

export default defineScenario({
  id: 'jwt.embedded-key-rejected',
  title: 'An access token signed by a key named in its own header (jwk, jku, x5u) is refused',
  requirements: {
    // The forged tokens go to the target's own protected resources (userinfo, introspection, token
    // exchange), where it verifies its access tokens as a resource server: "The resource server MUST use
    // the keys provided by the authorization server." RFC 7515 §4.1.3 (jwk) and §4.1.2 (jku) only define
    // the headers, and RFC 8725 §3.10's SHOULD is about the SSRF of fetching jku/x5u, which this does not test.
    rfc9068_4: {
      spec: 'RFC 9068',
      section: '4',
      level: 'MUST',
      party: 'server',
      note: 'the resource server uses the keys provided by the authorization server',
    },
    specAuthentication: {
      spec: 'SPEC',
      section: 'Authentication',
      level: 'MUST',
      party: 'server',
      note: 'rule 6: signature verified with a key from the key set',
    },
  },
  severity: 'critical',
  appliesTo: 'oauth2',
  requires: FORGERY_REQUIRES,
  catches: ['trusts-embedded-jwk', 'exchange-subject-unverified', 'introspection-always-active'],
  run: (ctx) =>
    expectForgeriesRefused(ctx, ['embedded-jwk', 'jku', 'x5u'], {
      per: ctx.applies(ctx.req.specAuthentication) ? ctx.req.specAuthentication : ctx.req.rfc9068_4,
    }),
});

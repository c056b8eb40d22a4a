import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';

export default defineScenario({
  id: 'code.state-round-trip',
  title: 'The authorization response returns state exactly as the client sent it',
  requirements: {
    rfc6749_4_1_2: { spec: 'RFC 6749', section: '4.1.2', level: 'MUST', party: 'server' },
    specAuthorizationEndpoint: {
      spec: 'SPEC',
      section: 'Authorization endpoint',
      level: 'MUST',
      party: 'server',
      note: 'state is returned unchanged',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    roles: ['confidential'],
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:authorization'],
  },
  catches: ['state-dropped'],
  async run(ctx) {
    // RFC 6749 Appendix A.5 allows any printable ASCII in state: these need URL encoding, and the
    // literal %2B and %26 show a server that decodes twice.
    const state = `${ctx.random(12)} a+b/c=d&e?f#g %2B%26~`;
    const { response } = await ctx.flows.code('confidential', { params: { state } });
    if (response.state === state) return;
    const got = response.state === undefined ? 'without state' : `with state ${JSON.stringify(response.state)}`;
    throw new CheckFailure(
      `The authorization response for a request with state ${JSON.stringify(state)} came back ${got}; RFC 6749 ` +
        `§4.1.2 requires the exact value the client sent.`,
      { kind: 'refused-wrongly' },
    );
  },
});

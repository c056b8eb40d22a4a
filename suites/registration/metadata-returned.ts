import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import { codeClientMetadata, registerOrFail, withRegistration } from '../checks/registration.ts';

/**
 * RFC 7591 §3.2.1: the registration response returns all registered metadata. The server may
 * replace values (§2), so only presence is judged, of the fields a code-flow client cannot do
 * without: its redirect URIs and its grant types.
 */
export default defineScenario({
  id: 'registration.metadata-returned',
  appliesTo: 'oauth2',
  title: 'The registration response returns the registered metadata',
  requirements: {
    rfc7591_3_2_1: {
      spec: 'RFC 7591',
      section: '3.2.1',
      level: 'MUST',
      party: 'server',
      note: 'the authorization server MUST return all registered metadata about the client',
    },
  },
  severity: 'low',
  requires: { capabilities: ['endpoint:registration'] },
  catches: ['registration-drops-metadata'],
  async run(ctx) {
    const sent = codeClientMetadata(ctx);
    const registration = await registerOrFail(ctx, sent, 'registration of a confidential client');
    await withRegistration(ctx, registration, async () => {
      const returned = registration.metadata;
      const missing = ['redirect_uris', 'grant_types'].filter((field) => {
        const value = returned[field];
        return !Array.isArray(value) || value.length === 0;
      });
      const others = Object.keys(sent).filter((field) => !missing.includes(field) && returned[field] === undefined);
      if (others.length) ctx.evidence.note(`Also sent but not returned (may be unsupported): ${others.join(', ')}.`);
      if (missing.length) {
        throw new CheckFailure(
          `A registration response for a client registered with ${missing.join(' and ')} does not return ` +
            `${missing.length === 1 ? 'it' : 'them'}; ${ctx.req.rfc7591_3_2_1} requires all registered metadata ` +
            'in the response.',
          { requirement: ctx.req.rfc7591_3_2_1, kind: 'refused-wrongly' },
        );
      }
      ctx.evidence.note(`redirect_uris and grant_types returned: ${JSON.stringify(returned.redirect_uris)}.`);
    });
  },
});

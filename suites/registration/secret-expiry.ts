import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import { codeClientMetadata, registerOrFail, withRegistration } from '../checks/registration.ts';

/** RFC 7591 §3.2.1: a response that issues a client_secret says when it expires (0: never). */
export default defineScenario({
  id: 'registration.secret-expiry',
  appliesTo: 'oauth2',
  title: 'A registration response that issues a client_secret carries client_secret_expires_at',
  requirements: {
    rfc7591_3_2_1: {
      spec: 'RFC 7591',
      section: '3.2.1',
      level: 'MUST',
      party: 'server',
      note: 'client_secret_expires_at REQUIRED if client_secret is issued',
    },
  },
  severity: 'medium',
  requires: { capabilities: ['endpoint:registration'] },
  catches: ['registration-no-secret-expiry'],
  async run(ctx) {
    const registration = await registerOrFail(ctx, codeClientMetadata(ctx), 'registration of a confidential client');
    await withRegistration(ctx, registration, async () => {
      if (!registration.clientSecret) {
        ctx.skip('the target issued no client_secret to a client_secret_basic client: nothing to judge');
      }
      const expiresAt = registration.metadata.client_secret_expires_at;
      const valid = typeof expiresAt === 'number' && Number.isInteger(expiresAt) && expiresAt >= 0;
      if (!valid) {
        throw new CheckFailure(
          `A registration response issued a client_secret with client_secret_expires_at ` +
            `${expiresAt === undefined ? 'missing' : `= ${JSON.stringify(expiresAt)}`}; ${ctx.req.rfc7591_3_2_1} ` +
            'requires it, as seconds since the epoch or 0 for a secret that does not expire.',
          { requirement: ctx.req.rfc7591_3_2_1, kind: 'refused-wrongly' },
        );
      }
      ctx.evidence.note(`client_secret_expires_at: ${expiresAt}.`);
    });
  },
});

import { CheckFailure, defineScenario } from '../../harness/scenario.ts';
import { REGISTRATION_ERRORS } from '../../protocol/registration.ts';
import {
  REGISTERED_REDIRECT_URI,
  codeClientMetadata,
  deleteRegistered,
  expectRegistrationRefusalIsFor,
  tryRegister,
} from '../checks/registration.ts';

/**
 * A redirect URI with a fragment is no redirection endpoint (RFC 6749 §3.1.2); the registration
 * endpoint refuses it with invalid_redirect_uri (RFC 7591 §3.2.2).
 */
export default defineScenario({
  id: 'registration.fragment-refused',
  appliesTo: 'oauth2',
  title: 'A redirect URI with a fragment is refused with invalid_redirect_uri',
  requirements: {
    rfc6749_3_1_2: {
      spec: 'RFC 6749',
      section: '3.1.2',
      level: 'MUST',
      party: 'server',
      note: 'the redirection endpoint URI MUST NOT include a fragment component',
    },
    rfc7591_3_2_2: {
      spec: 'RFC 7591',
      section: '3.2.2',
      level: 'MUST',
      party: 'server',
      note: 'invalid_redirect_uri: the value of one or more redirection URIs is invalid',
    },
  },
  severity: 'high',
  requires: { capabilities: ['endpoint:registration'] },
  catches: ['registration-accepts-fragment', 'error-format-wrong'],
  async run(ctx) {
    const uri = `${REGISTERED_REDIRECT_URI}#fragment`;
    const sound = codeClientMetadata(ctx);
    const outcome = await tryRegister(
      ctx,
      { ...sound, redirect_uris: [uri] },
      'registration with a redirect URI that has a fragment',
    );
    if (outcome.ok) {
      await deleteRegistered(ctx, outcome.value);
      throw new CheckFailure(
        `A registration request with the redirect URI ${uri} got HTTP ${outcome.status} with client_id ` +
          `${outcome.value.clientId}; ${ctx.req.rfc6749_3_1_2} forbids a fragment in a redirection endpoint URI ` +
          `and ${ctx.req.rfc7591_3_2_2} has the server refuse it with invalid_redirect_uri.`,
        { requirement: ctx.req.rfc6749_3_1_2, kind: 'accepted' },
      );
    }
    // The refusal is judged only once the same request without the fragment is shown to register.
    await expectRegistrationRefusalIsFor(ctx, sound, `was refused (${outcome.problem})`, 'the fragment');
    if (outcome.status !== 400 || outcome.error !== 'invalid_redirect_uri') {
      const known = REGISTRATION_ERRORS.includes(outcome.error as never) ? '' : ' (no RFC 7591 §3.2.2 code)';
      throw new CheckFailure(
        `A registration request with the redirect URI ${uri} was refused, but ${outcome.problem}${known}; ` +
          `${ctx.req.rfc7591_3_2_2} requires HTTP 400 with error=invalid_redirect_uri.`,
        { requirement: ctx.req.rfc7591_3_2_2, kind: 'refused-wrongly' },
      );
    }
  },
});

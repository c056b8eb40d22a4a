import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import { REGISTRATION_ERRORS } from '../../protocol/registration.ts';
import {
  REGISTERED_REDIRECT_URI,
  codeClientMetadata,
  deleteRegistered,
  expectRegistrationRefusalIsFor,
  tryRegister,
} from '../checks/registration.ts';
import { isOneOf } from '../../protocol/guards.ts';

/**
 * A redirect URI with a fragment is no redirection endpoint (RFC 6749 §3.1.2); the registration
 * endpoint refuses it with an RFC 7591 §3.2.2 error response (HTTP 400, a JSON error code). The code
 * (invalid_redirect_uri, which §3.2.2 defines for this case, or another) is noted, not judged.
 */
export default defineScenario({
  id: 'registration.fragment-refused',
  appliesTo: 'oauth2',
  title: 'A redirect URI with a fragment is refused (HTTP 400 with an error code, e.g. invalid_redirect_uri)',
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
      note: 'a refusal is HTTP 400 with a JSON error code (REQUIRED); invalid_redirect_uri is defined for this case',
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
    // The refusal's form is required: HTTP 400 (unless otherwise specified) with a JSON object whose error member is
    // REQUIRED. Which code it carries is the server's choice: §3.2.2 defines invalid_redirect_uri for this case, and
    // invalid_client_metadata too, without a keyword that makes one of them the answer: a note, not a failure.
    if (outcome.status !== 400 || typeof outcome.error !== 'string') {
      throw new CheckFailure(
        `A registration request with the redirect URI ${uri} was refused, but ${outcome.problem}; ` +
          `${ctx.req.rfc7591_3_2_2} requires HTTP 400 with a JSON object carrying an error code (REQUIRED).`,
        { requirement: ctx.req.rfc7591_3_2_2, kind: 'refused-wrongly' },
      );
    }
    if (outcome.error !== 'invalid_redirect_uri') {
      const known = isOneOf(REGISTRATION_ERRORS, outcome.error) ? '' : ', a code RFC 7591 §3.2.2 does not define';
      ctx.evidence.note(
        `Refused with error=${outcome.error}${known}; RFC 7591 §3.2.2 defines invalid_redirect_uri for an invalid ` +
          'redirection URI, but does not require that code (a note, not a failure).',
      );
    }
  },
});

import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import {
  codeClientMetadata,
  deleteRegistered,
  expectRegistrationRefusalIsFor,
  tryRegister,
} from '../checks/registration.ts';

/**
 * A public client of the code grant asks to register without any redirect URI. RFC 6749 §3.1.2.2
 * makes the server require public clients to register their redirection endpoint; the registration
 * request is the place to require it (RFC 7591 §2 and OIDC Registration §2 make redirect_uris the
 * client's duty for redirect-based flows).
 */
export default defineScenario({
  id: 'registration.redirect-uris-required',
  appliesTo: 'oauth2',
  title: 'A public client of the code flow cannot register without redirect_uris',
  requirements: {
    rfc6749_3_1_2_2: {
      spec: 'RFC 6749',
      section: '3.1.2.2',
      level: 'MUST',
      party: 'server',
      note: 'the server MUST require public clients to register their redirection endpoint',
    },
    rfc7591_2: {
      spec: 'RFC 7591',
      section: '2',
      level: 'MUST',
      party: 'client',
      note: 'clients using flows with redirection MUST register their redirection URI values',
    },
    oidcreg_2: {
      spec: 'OIDC Registration',
      section: '2',
      level: 'MUST',
      party: 'client',
      note: 'redirect_uris REQUIRED',
    },
  },
  severity: 'high',
  requires: { capabilities: ['endpoint:registration'] },
  catches: ['registration-redirect-uris-optional'],
  async run(ctx) {
    const methods = ctx.target.discovery?.token_endpoint_auth_methods_supported;
    if (Array.isArray(methods) && !methods.includes('none')) {
      ctx.skip('the target offers no public clients (token_endpoint_auth_methods_supported lacks none)');
    }
    const sound = codeClientMetadata(ctx, { token_endpoint_auth_method: 'none' });
    const metadata = { ...sound, redirect_uris: undefined };
    const outcome = await tryRegister(ctx, metadata, 'registration of a public code-flow client without redirect_uris');
    if (!outcome.ok) {
      await expectRegistrationRefusalIsFor(ctx, sound, `was refused (${outcome.problem})`, 'the missing redirect_uris');
      return;
    }
    await deleteRegistered(ctx, outcome.value);
    const registered = outcome.value.metadata.redirect_uris;
    throw new CheckFailure(
      `A registration request for a public client of the authorization code grant without redirect_uris got ` +
        `HTTP ${outcome.status} with client_id ${outcome.value.clientId} (redirect_uris in the response: ` +
        `${JSON.stringify(registered ?? null)}); ${ctx.req.rfc6749_3_1_2_2} requires the server to make such a ` +
        'client register its redirection endpoint.',
      { requirement: ctx.req.rfc6749_3_1_2_2 },
    );
  },
});

/**
 * The target config's registration block (RFC 7591/7592): whether the harness registers the
 * clients the config does not name, with which initial access token and endpoint, for which roles
 * (DEFAULT_REGISTERED_ROLES unless listed), and the metadata sent per role.
 */
import { z } from 'zod';
import { REGISTRATION_RESPONSE_FIELDS } from '../../protocol/registration.ts';
import { httpUrl, perRole, secret } from './fields.ts';
import { CLIENT_ROLES, type ClientRole } from '../model/requirements.ts';

/**
 * The roles the harness registers by default when registration is on (issue 30): every role the catalog uses but the
 * deprecated legacy one (password and implicit grants), which is registered only when registration.roles lists it.
 */
export const DEFAULT_REGISTERED_ROLES: readonly ClientRole[] = CLIENT_ROLES.filter((role) => role !== 'legacy');

const RESPONSE_FIELDS: ReadonlySet<string> = new Set(REGISTRATION_RESPONSE_FIELDS);

const metadataOverrides = z.record(z.string().min(1), z.unknown()).superRefine((metadata, ctx) => {
  for (const name of Object.keys(metadata)) {
    if (RESPONSE_FIELDS.has(name)) {
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: 'is set by the IdP in its registration response (RFC 7591 §3.2.1), not sent by a client; remove it',
      });
    }
  }
});

export const registrationSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .describe(
        'Register the clients the config does not name (RFC 7591) before the scenarios, and delete them after ' +
          '(RFC 7592 §2.3), whatever ends the run.',
      ),
    initialAccessToken: secret('initialAccessToken')
      .optional()
      .describe(
        'An initial access token (RFC 7591 §3), sent as a Bearer token with each registration request, when the ' +
          'IdP requires one. A secret: use ${ENV}.',
      ),
    endpoint: httpUrl('endpoint')
      .optional()
      .describe('The registration endpoint, when discovery has no registration_endpoint (or it is the wrong one).'),
    roles: z
      .array(z.enum(CLIENT_ROLES))
      .optional()
      .describe(
        'Which roles to register when the config has no client for them (default: ' +
          `${DEFAULT_REGISTERED_ROLES.join(', ')}; add "legacy" to register that one too).`,
      ),
    metadata: z
      .strictObject(
        perRole((role) =>
          metadataOverrides
            .optional()
            .describe(`Client metadata (RFC 7591 §2) sent for the ${role} role, over the harness's own.`),
        ),
      )
      .optional()
      .describe(
        'Per role, client metadata (RFC 7591 §2, OIDC Registration §2) merged over what the harness sends, e.g. ' +
          '{"confidential": {"scope": "openid profile email"}}.',
      ),
  })
  .describe(
    'Dynamic client registration (RFC 7591/7592): the harness registers the clients it needs and deletes them when ' +
      'the run ends. With it, a config needs only the issuer, a user and a login.',
  );

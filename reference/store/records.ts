/**
 * The Store's records as they come back from JSON (store/redis.ts): each parsed by a schema, so that what Redis holds
 * is read, not assumed. Each schema is checked against its record's interface (store.ts) by its type; members a
 * schema does not name are kept, as JSON.parse kept them.
 */
import { z } from 'zod';
import type {
  AccessTokenRecord,
  ActivationRecord,
  ClientRegistrationRecord,
  CodeRecord,
  DeviceRecord,
  InteractionRecord,
  PushedRequestRecord,
  RefreshRecord,
  SessionRecord,
} from './store.ts';

const PKCE_METHOD = z.enum(['S256', 'plain']);
const REQUESTED_CLAIMS = z.object({
  idToken: z.array(z.string()).optional(),
  userinfo: z.array(z.string()).optional(),
});
const USER = z.object({ sub: z.string(), authTime: z.number() });

export const CODE_RECORD: z.ZodType<CodeRecord> = z.looseObject({
  code: z.string(),
  grantId: z.string(),
  clientId: z.string(),
  redirectUri: z.string(),
  sub: z.string(),
  scope: z.string(),
  nonce: z.string().optional(),
  codeChallenge: z.string().optional(),
  codeChallengeMethod: PKCE_METHOD.optional(),
  authTime: z.number(),
  sid: z.string().optional(),
  claims: REQUESTED_CLAIMS.optional(),
  resources: z.array(z.string()).optional(),
  dpopJkt: z.string().optional(),
  hybrid: z.boolean().optional(),
  expiresAt: z.number(),
});

export const REFRESH_RECORD: z.ZodType<RefreshRecord> = z.looseObject({
  token: z.string(),
  grantId: z.string(),
  clientId: z.string(),
  sub: z.string(),
  scope: z.string(),
  authTime: z.number(),
  jkt: z.string().optional(),
  resources: z.array(z.string()).optional(),
  expiresAt: z.number(),
});

/** A refresh token's state key (active, rotated or revoked); absent (expired) or anything else reads as revoked. */
export const REFRESH_STATE = z.enum(['active', 'rotated', 'revoked']).catch('revoked');

export const ACCESS_TOKEN_RECORD: z.ZodType<AccessTokenRecord> = z.looseObject({
  jti: z.string(),
  grantId: z.string().optional(),
  clientId: z.string(),
  userinfoClaims: z.array(z.string()).optional(),
  expiresAt: z.number(),
});

export const INTERACTION_RECORD: z.ZodType<InteractionRecord> = z.looseObject({
  id: z.string(),
  clientId: z.string(),
  redirectUri: z.string(),
  responseType: z
    .enum(['code', 'token', 'id_token', 'id_token token', 'code id_token', 'code token', 'code id_token token'])
    .optional(),
  responseMode: z.enum(['query', 'fragment', 'form_post', 'query.jwt', 'fragment.jwt', 'form_post.jwt']).optional(),
  scope: z.string(),
  state: z.string().optional(),
  nonce: z.string().optional(),
  codeChallenge: z.string().optional(),
  codeChallengeMethod: PKCE_METHOD.optional(),
  sub: z.string().optional(),
  authTime: z.number().optional(),
  sessionId: z.string().optional(),
  claims: REQUESTED_CLAIMS.optional(),
  promptConsent: z.boolean().optional(),
  resources: z.array(z.string()).optional(),
  dpopJkt: z.string().optional(),
  expiresAt: z.number(),
});

export const DEVICE_RECORD: z.ZodType<DeviceRecord> = z.looseObject({
  deviceCode: z.string(),
  userCode: z.string(),
  grantId: z.string(),
  clientId: z.string(),
  scope: z.string(),
  status: z.enum(['pending', 'approved', 'denied', 'redeemed']),
  interval: z.number(),
  lastPollAt: z.number().optional(),
  user: USER.optional(),
  expiresAt: z.number(),
});

export const ACTIVATION_RECORD: z.ZodType<ActivationRecord> = z.looseObject({
  id: z.string(),
  deviceCode: z.string(),
  user: USER.optional(),
  expiresAt: z.number(),
});

export const SESSION_RECORD: z.ZodType<SessionRecord> = z.looseObject({
  id: z.string(),
  sub: z.string(),
  authTime: z.number(),
  consents: z.record(z.string(), z.string()).optional(),
  sid: z.string().optional(),
  clients: z.array(z.string()).optional(),
  expiresAt: z.number(),
});

export const PUSHED_REQUEST_RECORD: z.ZodType<PushedRequestRecord> = z.looseObject({
  requestUri: z.string(),
  clientId: z.string(),
  params: z.record(z.string(), z.string()),
  resources: z.array(z.string()).optional(),
  unregisteredRedirect: z.boolean().optional(),
  expiresAt: z.number(),
});

export const CLIENT_REGISTRATION_RECORD: z.ZodType<ClientRegistrationRecord> = z.looseObject({
  clientId: z.string(),
  clientSecret: z.string().optional(),
  registrationTokenHash: z.string(),
  issuedAt: z.number(),
  metadata: z.record(z.string(), z.unknown()),
  expiresAt: z.number(),
});

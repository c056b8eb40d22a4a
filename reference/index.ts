/** The reference authorization server's public API. */
export { createReferenceServer, type ReferenceServer } from './server.ts';
export type { ServerContext } from './context.ts';
export { resolveClients } from './clients.ts';
export { DEFAULT_LIFETIMES, type Lifetimes } from './lifetimes.ts';
export { SEEDED_KEYED_PRIVATE_JWK } from './seeded-keys.ts';
export { MAX_TEST_USERS, SEEDED_USER, testUsers } from './seeded-user.ts';
export {
  DEFAULT_RESOURCES,
  LEGACY_CLIENT,
  SCOPES_SUPPORTED,
  SEEDED_CLIENTS,
  type ClientAuthMethod,
  type ClientConfig,
  type ClientRole,
  type GrantType,
  type TargetRole,
  type ReferenceOptions,
  type RegistrationOptions,
  type RegisteredClient,
  type SigningAlg,
  type StandardClaims,
  type UserConfig,
} from './options.ts';
export { FLAWS, FLAW_NAMES, Flaws, isFlawName, type FlawName } from './flaws.ts';
export {
  VARIANTS,
  VARIANT_NAMES,
  Variants,
  isVariantName,
  type VariantInfo,
  type VariantName,
} from './variants.ts';
export type { Store, Successors } from './store/store.ts';
export {
  guardStore,
  outageReason,
  RETRY_AFTER_SECONDS,
  STORE_TIMEOUT_MS,
  StoreUnavailableError,
  storeHealth,
} from './store/outage.ts';
export { MemoryStore } from './store/memory.ts';
export { RedisStore, type RedisStoreOptions } from './store/redis.ts';
export { isSigningAlg, KeySet, SIGNING_ALGS, sharedKeySet, type SharedValues, type SigningKey } from './keys.ts';
export { OAuthError } from './oauth-error.ts';
export type { Grant, TokenResponse } from './grants/grant.ts';
export {
  targetConfig,
  targetConfig as targetConfigFor,
  type TargetClient,
  type TargetConfig,
} from './target-config.ts';
export { mcpResourceOf, securitySettings, type SecuritySettings } from './security-profile.ts';
export { protectedResourceMetadataUrl } from './mcp/resource-server.ts';
export {
  Clock,
  PROTECTED_CLAIMS,
  type ShapeClaims,
  type ShapeContext,
  type TestLoginRequest,
  type TestLoginResult,
  type TokenKind,
} from './fixture.ts';

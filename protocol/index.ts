/**
 * Protocol facts: pure data and functions from the RFCs and OpenID specs, importing nothing of the
 * project (node built-ins only), so that every folder may import them. See docs/ARCHITECTURE.md.
 */
export * from './client-roles.ts';
export * from './errors.ts';
export * from './flaw-names.ts';
export * from './grants.ts';
export * from './jwk.ts';
export * from './jws.ts';
export * from './jwt-profiles.ts';
export * from './logout.ts';
export * from './pkce.ts';
export * from './referrer-policy.ts';
export * from './registration.ts';
export * from './response-type.ts';
export * from './scope.ts';
export * from './syntax.ts';
export * from './token-hash.ts';

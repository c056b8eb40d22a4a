/**
 * fast-check generators for the property scenarios and the fuzzing of the reference: pure,
 * deterministic under a seed, no network. One module per concept, named by what it produces.
 */
export * from './redirect-uri.ts';
export * from './pkce.ts';
export * from './jwt-tamper.ts';
export * from './jwt-forgery.ts';
export * from './attacker-keys.ts';
export * from './jws.ts';
export * from './token-request.ts';
export * from './scope.ts';

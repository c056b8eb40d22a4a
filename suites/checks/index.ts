/** The reusable conditions scenarios are written with (the OpenID suite's "conditions"). */
export * from './oauth.ts';
export * from './discovery.ts';
export * from './scope.ts';
export * from './scope-grant.ts';
export * from './refresh.ts';
export * from './framing.ts';
export * from './clients.ts';
export * from './authorization.ts';
export * from './token-liveness.ts';
export * from './presented-tokens.ts';
export * from './token-acceptance.ts';
export * from './token-exchange.ts';
export * from './id-token-flow.ts';
export * from './offline-access.ts';
export * from './device.ts';
export * from './legacy.ts';

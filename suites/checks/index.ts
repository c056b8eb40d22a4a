/** The reusable conditions scenarios are written with (the OpenID suite's "conditions"). */
export * from './oauth.ts';
export * from './discovery.ts';
export * from './scope.ts';
export * from './token-error.ts';
export * from './race.ts';

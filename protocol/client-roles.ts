/**
 * The client roles a target config names (docs/target-config.md): each role is a client registered for one
 * purpose; `legacy` may use the password and implicit grants.
 */
export const CLIENT_ROLES = [
  'confidential',
  'confidential2',
  'public',
  'machine',
  'device',
  'exchange',
  'legacy',
  'keyed',
] as const;

export type ClientRole = (typeof CLIENT_ROLES)[number];

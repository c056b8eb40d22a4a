/**
 * The settings that turn the reference into a FAPI 2.0 Security Profile server (FAPI 2.0 SP
 * §5.3.2.1, §5.3.2.2): PAR required, DPoP required, private_key_jwt only (the assertion's aud
 * the issuer alone). Without `profile`, each is off unless its own option turns it on.
 */
import type { ClientAuthMethod, ReferenceOptions } from './options.ts';
import { DEFAULT_RESOURCES } from './options.ts';

export interface SecuritySettings {
  parRequired: boolean;
  /** Seconds. */
  parLifetime: number;
  dpopRequired: boolean;
  /** Client authentication methods the token and PAR endpoints accept. */
  authMethods: readonly ClientAuthMethod[];
  /** `issuer`: only the issuer identifier, as a string (FAPI 2.0 SP §5.3.2.1); `any`: RFC 7523 §3 and RFC 9126 §2. */
  assertionAudience: 'issuer' | 'any';
  resources: readonly string[];
}

/** The MCP endpoint of a server with this issuer: `{origin}/mcp`, the resource identifier (RFC 8707, RFC 9728). */
export const mcpResourceOf = (issuer: string): string => `${new URL(issuer).origin}/mcp`;

export const ALL_AUTH_METHODS: readonly ClientAuthMethod[] = [
  'client_secret_basic',
  'client_secret_post',
  'none',
  'private_key_jwt',
];

/**
 * The settings of the options. `issuer` (read when `resources` is, never before): under `mcp`, the protected resource
 * `{origin}/mcp` (reference/mcp/) is one of the resources too, after the configured ones.
 */
export function securitySettings(options: ReferenceOptions, issuer?: () => string): SecuritySettings {
  const fapi2 = options.profile === 'fapi2';
  const configured = options.resources ?? DEFAULT_RESOURCES;
  return {
    parRequired: options.requirePushedAuthorizationRequests ?? fapi2,
    parLifetime: options.pushedRequestLifetime ?? 60,
    dpopRequired: options.requireDpop ?? fapi2,
    authMethods: fapi2 ? ['private_key_jwt'] : ALL_AUTH_METHODS,
    assertionAudience: fapi2 ? 'issuer' : 'any',
    get resources() {
      return options.mcp && issuer ? [...configured, mcpResourceOf(issuer())] : configured;
    },
  };
}

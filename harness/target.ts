/**
 * Discovery → a resolved Target: the endpoints and the capabilities scenarios are gated on.
 * Defaults follow OIDC Discovery §3 where a field is absent.
 */
import type { TargetConfig } from './config.ts';
import { HttpClient, Recorder } from './http.ts';
import { OriginPolicy } from './origin.ts';
import type { Redactor } from './redact.ts';
import type { HttpEvidence } from './results.ts';

export type EndpointName =
  | 'authorization' | 'token' | 'userinfo' | 'jwks' | 'revocation' | 'introspection'
  | 'deviceAuthorization' | 'registration' | 'endSession' | 'pushedAuthorization';

const ENDPOINT_FIELDS: Record<EndpointName, string> = {
  authorization: 'authorization_endpoint',
  token: 'token_endpoint',
  userinfo: 'userinfo_endpoint',
  jwks: 'jwks_uri',
  revocation: 'revocation_endpoint',
  introspection: 'introspection_endpoint',
  deviceAuthorization: 'device_authorization_endpoint',
  registration: 'registration_endpoint',
  endSession: 'end_session_endpoint',
  pushedAuthorization: 'pushed_authorization_request_endpoint',
};

/**
 * Discovery fields whose presence (true, or a non-empty list) advertises an optional feature:
 * `metadata:<field>` capabilities (RFC 9126 §5, RFC 9207 §3, RFC 9449 §5.1).
 */
export const FEATURE_FIELDS = [
  'require_pushed_authorization_requests',
  'authorization_response_iss_parameter_supported',
  'dpop_signing_alg_values_supported',
] as const;

/**
 * What a target offers, as advertised by discovery:
 * `grant:<grant_type>`, `response_type:<type>`, `pkce:<method>`, `auth:<token endpoint auth method>`,
 * `endpoint:<EndpointName>`, `id_token_alg:<alg>`, `metadata:<field>` (an optional feature's field is
 * true or a non-empty list).
 */
export type Capability =
  | `grant:${string}`
  | `response_type:${string}`
  | `pkce:${string}`
  | `auth:${string}`
  | `endpoint:${EndpointName}`
  | `id_token_alg:${string}`
  | `metadata:${(typeof FEATURE_FIELDS)[number]}`;

export interface Target {
  /** The configured (trusted) issuer: what ID tokens must carry. */
  issuer: string;
  discoveryUrl: string;
  /** The discovery document, or null when it could not be read (see discoveryProblem). */
  discovery: Record<string, unknown> | null;
  discoveryProblem?: string;
  /** The discovery exchange, for scenarios that report on it. */
  discoveryEvidence: HttpEvidence[];
  endpoints: Partial<Record<EndpointName, string>>;
  capabilities: ReadonlySet<Capability>;
  supports(capability: Capability): boolean;
  /**
   * Where requests may go (DESIGN §9): the issuer's origin and allowedOrigins, the endpoints named;
   * refusing everything when the discovery document must not be used (OIDC Discovery §4.3).
   * Absent on a Target built by hand: the runner then applies the config's rule.
   */
  origins?: OriginPolicy;
}

export const GRANT = {
  code: 'authorization_code',
  clientCredentials: 'client_credentials',
  refresh: 'refresh_token',
  device: 'urn:ietf:params:oauth:grant-type:device_code',
  exchange: 'urn:ietf:params:oauth:grant-type:token-exchange',
  password: 'password',
  implicit: 'implicit',
} as const;

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined;
}

export function discoveryUrlOf(config: Pick<TargetConfig, 'issuer' | 'discoveryUrl'>): string {
  return config.discoveryUrl ?? `${config.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}

/** Build the Target from a discovery document (or from none). */
export function targetFromDiscovery(
  issuer: string,
  discoveryUrl: string,
  discovery: Record<string, unknown> | null,
  problem?: string,
  evidence: HttpEvidence[] = [],
): Target {
  const endpoints: Partial<Record<EndpointName, string>> = {};
  const caps = new Set<Capability>();
  if (discovery) {
    for (const [name, field] of Object.entries(ENDPOINT_FIELDS) as [EndpointName, string][]) {
      const value = discovery[field];
      if (typeof value === 'string' && value) {
        endpoints[name] = value;
        caps.add(`endpoint:${name}`);
      }
    }
    // OIDC Discovery §3 defaults: grant types ["authorization_code", "implicit"], client_secret_basic.
    for (const g of strings(discovery.grant_types_supported) ?? ['authorization_code', 'implicit']) caps.add(`grant:${g}`);
    for (const t of strings(discovery.response_types_supported) ?? []) caps.add(`response_type:${t}`);
    for (const m of strings(discovery.code_challenge_methods_supported) ?? []) caps.add(`pkce:${m}`);
    for (const m of strings(discovery.token_endpoint_auth_methods_supported) ?? ['client_secret_basic']) caps.add(`auth:${m}`);
    for (const a of strings(discovery.id_token_signing_alg_values_supported) ?? []) caps.add(`id_token_alg:${a}`);
    for (const field of FEATURE_FIELDS) {
      const value = discovery[field];
      if (value === true || (Array.isArray(value) && value.length > 0)) caps.add(`metadata:${field}`);
    }
  }
  return {
    issuer,
    discoveryUrl,
    discovery,
    ...(problem ? { discoveryProblem: problem } : {}),
    discoveryEvidence: evidence,
    endpoints,
    capabilities: caps,
    supports: (c) => caps.has(c),
  };
}

/**
 * Fetch discovery. Throws TargetUnreachableError when nothing answers (exit code 3); a document
 * that answers but is unusable gives a Target with discovery null and the problem named.
 */
export async function resolveTarget(
  config: Pick<TargetConfig, 'issuer' | 'discoveryUrl' | 'timeouts'> & Partial<Pick<TargetConfig, 'allowedOrigins' | 'limits'>>,
  redactor: Redactor,
  fetchImpl?: typeof fetch,
): Promise<Target> {
  const url = discoveryUrlOf(config);
  // A discoveryUrl the config names is the user's choice: its origin is allowed for discovery.
  const base = new OriginPolicy({ issuer: config.issuer, allowedOrigins: [...(config.allowedOrigins ?? []), ...(config.discoveryUrl ? [new URL(config.discoveryUrl).origin] : [])] });
  const recorder = new Recorder(redactor);
  const http = new HttpClient({
    recorder, requestTimeoutMs: config.timeouts?.requestMs ?? 10_000, origins: base,
    ...(config.limits ? { limits: config.limits } : {}),
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
  const res = await http.get(url, { label: 'discovery document' });
  const evidence = recorder.evidence.filter((e): e is HttpEvidence => e.kind === 'http');
  let problem: string | undefined;
  if (res.status !== 200) problem = `GET ${url} answered ${res.status}, not 200`;
  else if (!res.json || typeof res.json !== 'object' || Array.isArray(res.json)) problem = `GET ${url} did not return a JSON object`;
  const discovery = problem ? null : res.body;
  const target = targetFromDiscovery(config.issuer, url, discovery, problem, evidence);
  const named = Object.fromEntries(Object.entries(target.endpoints).map(([name, u]) => [ENDPOINT_FIELDS[name as EndpointName], u]));
  const issuer = discovery?.issuer;
  const unusable = discovery && issuer !== config.issuer
    ? `the discovery document names the issuer ${typeof issuer === 'string' ? `"${issuer}"` : 'nothing'}, not the configured "${config.issuer}"; OIDC Discovery §4.3: its contents MUST NOT be used, so the harness sends nothing to its endpoints`
    : undefined;
  // The policy for the run: the issuer's origin and allowedOrigins only (a discoveryUrl elsewhere serves discovery alone).
  target.origins = new OriginPolicy({ issuer: config.issuer, allowedOrigins: config.allowedOrigins ?? [], endpoints: named, ...(unusable ? { unusable } : {}) });
  return target;
}

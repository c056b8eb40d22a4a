/**
 * Discovery → a resolved Target: the endpoints and the capabilities scenarios are gated on (the
 * metadata is fetched in target-discovery.ts).
 * Discovery is evidence, not the whole truth (docs/security.md): the config's discoveryOverrides are
 * merged over the fetched document, a configured role implies its grant, and behaviour observed
 * during the run (a refresh_token in a token response) enables capabilities too. Defaults follow
 * RFC 8414 §2 / OIDC Discovery §3 where a field is absent.
 */
import type { OriginPolicy } from '../http/origin.ts';
import type { ClientRole } from '../model/requirements.ts';
import type { HttpEvidence } from '../model/results.ts';
import { GRANT } from '../../protocol/grants.ts';

export const ENDPOINT_NAMES = [
  'authorization',
  'token',
  'userinfo',
  'jwks',
  'revocation',
  'introspection',
  'deviceAuthorization',
  'registration',
  'endSession',
  'pushedAuthorization',
] as const;

export type EndpointName = (typeof ENDPOINT_NAMES)[number];

export const ENDPOINT_FIELDS: Record<EndpointName, string> = {
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
  'backchannel_logout_supported',
  'frontchannel_logout_supported',
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

/**
 * What the target is: an OpenID provider ("oidc") or an OAuth 2.0 authorization server without OpenID Connect
 * ("oauth2"), and why the harness thinks so. `by` says what decided it: the config's `protocol`, the metadata
 * found, the behaviour of a code flow with the openid scope, or nothing (a guess the run may settle by behaviour).
 */
export interface TargetKind {
  protocol: 'oauth2' | 'oidc';
  /** One clause: "RFC 8414 metadata at …, no openid among scopes_supported". */
  why: string;
  by: 'config' | 'metadata' | 'behaviour' | 'guess';
}

/**
 * Which kind of metadata document was read: OIDC Discovery (openid-configuration) or RFC 8414
 * (oauth-authorization-server).
 */
export type MetadataKind = 'oidc-discovery' | 'rfc8414';

export interface Target {
  /** The configured (trusted) issuer: what ID tokens must carry. */
  issuer: string;
  /** Where the document was read (after a same-origin redirect: the final URL). */
  discoveryUrl: string;
  /** The discovery document with the config's discoveryOverrides merged over it, or null when it could not be read. */
  discovery: Record<string, unknown> | null;
  /** The document as the target served it (before the overrides). */
  fetchedDiscovery?: Record<string, unknown> | null;
  /** The config's discoveryOverrides that were applied. */
  discoveryOverrides?: Record<string, unknown>;
  discoveryProblem?: string;
  /** The problem is the harness's to solve (e.g. a redirect off the issuer's origin), not a verdict on the target. */
  discoveryProblemIsSetup?: boolean;
  /** Things worth telling the user about discovery (a redirect followed). */
  discoveryNotices?: string[];
  /** The discovery exchange, for scenarios that report on it. */
  discoveryEvidence: HttpEvidence[];
  /** The kind of metadata read (absent when none was). */
  metadataKind?: MetadataKind;
  /** An OpenID provider or an OAuth 2.0 authorization server, and why (settled before scenarios run). */
  kind: TargetKind;
  endpoints: Partial<Record<EndpointName, string>>;
  /** What discovery (with the overrides) advertises. */
  capabilities: ReadonlySet<Capability>;
  /** Capabilities implied by the configured client roles (a machine client → client_credentials). */
  implied: ReadonlyMap<Capability, string>;
  /** Advertised, or implied by a configured role, or observed during the run. */
  supports(capability: Capability): boolean;
  /**
   * Where requests may go (docs/security.md): the issuer's origin and allowedOrigins, the endpoints named;
   * refusing everything when the discovery document must not be used (OIDC Discovery §4.3).
   * Absent on a Target built by hand: the runner then applies the config's rule.
   */
  origins?: OriginPolicy;
  /**
   * Grants seen in use for a client role (e.g. a refresh_token in a token response): enables scenarios for that client.
   */
  observed(role: ClientRole): ReadonlySet<Capability>;
  observe(role: ClientRole, capability: Capability, how: string): void;
  /** How a capability was observed for a role, when it was. */
  observedHow(role: ClientRole, capability: Capability): string | undefined;
}

/** A configured role implies the grant it exists for (docs/security.md). Not legacy: it may be password or implicit. */
export const ROLE_GRANTS: Partial<Record<ClientRole, string>> = {
  machine: GRANT.clientCredentials,
  device: GRANT.device,
  exchange: GRANT.exchange,
};

/**
 * The target as the run plan holds it (harness/run/plan.ts planTarget): a new object with the kind the run settled
 * (when it did), the grants the clients registered for the run imply (as configured ones do), and its discovery
 * evidence handed out as a copy per read (a scenario's recorder marks and truncates what it is given). What the run
 * observes (observe) stays shared with the target it came from: the run's ledger, not the plan's data.
 */
export function settleTarget(
  target: Target,
  settled: { kind?: TargetKind | undefined; registeredRoles: readonly ClientRole[] },
): Target {
  const implied = new Map(target.implied);
  for (const role of settled.registeredRoles) {
    const grant = ROLE_GRANTS[role];
    if (grant && !target.capabilities.has(`grant:${grant}`))
      implied.set(`grant:${grant}`, `the ${role} client registered for this run`);
  }
  const { discoveryEvidence, ...rest } = target;
  const evidence = structuredClone(discoveryEvidence);
  return {
    ...rest,
    kind: settled.kind ?? target.kind,
    implied,
    supports: (c) => implied.has(c) || target.supports(c),
    get discoveryEvidence() {
      return structuredClone(evidence);
    },
  };
}

/**
 * Discovery fields that hold a list of capabilities, and their defaults when absent (RFC 8414 §2, OIDC Discovery §3).
 */
export const LIST_FIELDS: Record<string, { kind: string; default?: string[]; absentMeans: string }> = {
  grant_types_supported: {
    kind: 'grant',
    default: ['authorization_code', 'implicit'],
    absentMeans: 'the RFC 8414 §2 default ["authorization_code", "implicit"] applies',
  },
  response_types_supported: { kind: 'response_type', absentMeans: 'no response type is advertised' },
  code_challenge_methods_supported: { kind: 'pkce', absentMeans: 'RFC 8414 §2 reads that as no PKCE support' },
  token_endpoint_auth_methods_supported: {
    kind: 'auth',
    default: ['client_secret_basic'],
    absentMeans: 'the default ["client_secret_basic"] applies',
  },
  id_token_signing_alg_values_supported: { kind: 'id_token_alg', absentMeans: 'no algorithm is advertised' },
};

export { GRANT } from '../../protocol/grants.ts';

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined;
}

/** The metadata kind a URL names by its well-known suffix, if it names one. */
export function metadataKindOf(url: string): MetadataKind | undefined {
  if (url.includes('/.well-known/oauth-authorization-server')) return 'rfc8414';
  if (url.includes('/.well-known/openid-configuration')) return 'oidc-discovery';
  return undefined;
}

/** Fields only OpenID provider metadata has (OIDC Discovery §3): their presence says the server speaks OIDC. */
const OIDC_ONLY_FIELDS = ['id_token_signing_alg_values_supported', 'subject_types_supported', 'userinfo_endpoint'];

/**
 * The target's kind from the config's protocol and the metadata found (docs/target-config.md, "protocol"). The
 * metadata decides when it says so: OIDC Discovery metadata, or fields only an OP publishes, or scopes_supported with
 * or without openid; RFC 8414 metadata that says neither, or no metadata, leaves a guess that a code flow with the
 * openid scope can settle (harness/run/probes.ts: settleKind).
 */
export function kindOf(
  protocol: 'oauth2' | 'oidc' | undefined,
  url: string,
  doc: Record<string, unknown> | null,
  metadataKind: MetadataKind | undefined,
): TargetKind {
  if (protocol === 'oauth2') return { protocol, why: 'the target config says "protocol": "oauth2"', by: 'config' };
  if (protocol === 'oidc') return { protocol, why: 'the target config says "protocol": "oidc"', by: 'config' };
  if (!doc) {
    return {
      protocol: 'oidc',
      why: 'no metadata could be read, so it is taken for an OpenID provider',
      by: 'guess',
    };
  }
  const what = metadataKind === 'rfc8414' ? `RFC 8414 metadata at ${url}` : `OpenID provider metadata at ${url}`;
  const oidcFields = OIDC_ONLY_FIELDS.filter((f) => doc[f] !== undefined);
  const scopes = strings(doc.scopes_supported);
  if (scopes?.includes('openid'))
    return { protocol: 'oidc', why: `${what}, with openid among scopes_supported`, by: 'metadata' };
  if (oidcFields.length)
    return {
      protocol: 'oidc',
      why: `${what}, with the OpenID provider fields ${oidcFields.join(', ')}`,
      by: 'metadata',
    };
  if (scopes) {
    return { protocol: 'oauth2', why: `${what}, no openid among scopes_supported`, by: 'metadata' };
  }
  if (metadataKind === 'rfc8414')
    return { protocol: 'oauth2', why: `${what}, without scopes_supported or any OpenID provider field`, by: 'guess' };
  return { protocol: 'oidc', why: what, by: 'guess' };
}

export interface TargetExtras {
  /** Merged over the fetched document (config `discoveryOverrides`). */
  overrides?: Record<string, unknown>;
  /** The configured client roles: each implies its grant (ROLE_GRANTS). */
  roles?: readonly ClientRole[];
  problemIsSetup?: boolean;
  notices?: string[];
  /** The config's protocol (decides the kind outright). */
  protocol?: 'oauth2' | 'oidc';
  /** The kind of metadata read; default: from the URL's well-known suffix. */
  metadataKind?: MetadataKind;
}

/** Build the Target from a discovery document (or from none). */
export function targetFromDiscovery(
  issuer: string,
  discoveryUrl: string,
  fetched: Record<string, unknown> | null,
  problem?: string,
  evidence: HttpEvidence[] = [],
  extras: TargetExtras = {},
): Target {
  const endpoints: Partial<Record<EndpointName, string>> = {};
  const caps = new Set<Capability>();
  const overrides = extras.overrides && Object.keys(extras.overrides).length ? extras.overrides : undefined;
  // The overrides apply to a document that was read; without one they cannot stand in for it.
  const discovery = fetched ? { ...fetched, ...(overrides ?? {}) } : null;
  if (discovery) {
    for (const name of ENDPOINT_NAMES) {
      const value = discovery[ENDPOINT_FIELDS[name]];
      if (typeof value === 'string' && value) {
        endpoints[name] = value;
        caps.add(`endpoint:${name}`);
      }
    }
    // OIDC Discovery §3 defaults: grant types ["authorization_code", "implicit"], client_secret_basic.
    for (const g of strings(discovery.grant_types_supported) ?? ['authorization_code', 'implicit'])
      caps.add(`grant:${g}`);
    for (const t of strings(discovery.response_types_supported) ?? []) caps.add(`response_type:${t}`);
    for (const m of strings(discovery.code_challenge_methods_supported) ?? []) caps.add(`pkce:${m}`);
    for (const m of strings(discovery.token_endpoint_auth_methods_supported) ?? ['client_secret_basic'])
      caps.add(`auth:${m}`);
    for (const a of strings(discovery.id_token_signing_alg_values_supported) ?? []) caps.add(`id_token_alg:${a}`);
    for (const field of FEATURE_FIELDS) {
      const value = discovery[field];
      if (value === true || (Array.isArray(value) && value.length > 0)) caps.add(`metadata:${field}`);
    }
  }
  const implied = new Map<Capability, string>();
  for (const role of extras.roles ?? []) {
    const grant = ROLE_GRANTS[role];
    if (grant && !caps.has(`grant:${grant}`)) implied.set(`grant:${grant}`, `the configured ${role} client`);
  }
  const observed = new Map<ClientRole, Map<Capability, string>>();
  const metadataKind = fetched ? (extras.metadataKind ?? metadataKindOf(discoveryUrl) ?? 'oidc-discovery') : undefined;
  return {
    issuer,
    discoveryUrl,
    ...(metadataKind ? { metadataKind } : {}),
    kind: kindOf(extras.protocol, discoveryUrl, fetched, metadataKind),
    discovery,
    fetchedDiscovery: fetched,
    ...(overrides ? { discoveryOverrides: overrides } : {}),
    ...(problem ? { discoveryProblem: problem } : {}),
    ...(problem && extras.problemIsSetup ? { discoveryProblemIsSetup: true } : {}),
    ...(extras.notices?.length ? { discoveryNotices: extras.notices } : {}),
    discoveryEvidence: evidence,
    endpoints,
    capabilities: caps,
    implied,
    supports: (c) => caps.has(c) || implied.has(c) || [...observed.values()].some((m) => m.has(c)),
    observed: (role) => new Set(observed.get(role)?.keys() ?? []),
    observe(role, capability, how) {
      if (caps.has(capability)) return;
      let mine = observed.get(role);
      if (!mine) {
        mine = new Map();
        observed.set(role, mine);
      }
      if (!mine.has(capability)) mine.set(capability, how);
    },
    observedHow: (role, capability) => observed.get(role)?.get(capability),
  };
}

/**
 * Why a capability the target lacks is missing, in one clause, with the override that would enable
 * it: which discovery field was read, whether it was absent (and the default applied).
 */
export function explainMissing(target: Target, capability: Capability): string {
  const colon = capability.indexOf(':');
  const [kind, value] = [capability.slice(0, colon), capability.slice(colon + 1)];
  const doc = target.fetchedDiscovery;
  if (kind === 'endpoint') {
    const name = ENDPOINT_NAMES.find((n) => n === value);
    const field = name ? ENDPOINT_FIELDS[name] : value;
    return (
      `discovery has no ${field}; if the IdP has one, set "discoveryOverrides": { "${field}": "<its URL>" } in ` +
      `the target config`
    );
  }
  const entry = Object.entries(LIST_FIELDS).find(([, f]) => f.kind === kind);
  if (!entry) return `"${value}" (${kind}) is not advertised`;
  const [field, info] = entry;
  const read = doc?.[field];
  const overridden = target.discoveryOverrides && field in target.discoveryOverrides;
  const state = overridden
    ? `discoveryOverrides sets ${field} to ${JSON.stringify(target.discoveryOverrides![field])}`
    : read === undefined
      ? `discovery has no ${field}, so ${info.absentMeans}`
      : `discovery's ${field} is ${JSON.stringify(read)}`;
  const current = strings(target.discovery?.[field]) ?? info.default ?? [];
  const fix = JSON.stringify([...current, value]);
  const label =
    {
      grant: 'the grant type',
      response_type: 'the response type',
      pkce: 'the PKCE method',
      auth: 'the client authentication method',
      id_token_alg: 'the ID token algorithm',
    }[kind] ?? kind;
  return (
    `${label} "${value}" is not advertised: ${state}; if the IdP supports it, set "discoveryOverrides": { ` +
    `"${field}": ${fix} } in the target config`
  );
}

/**
 * Gating: why a scenario cannot run against this target and config (an OIDC-only scenario on an
 * OAuth 2.0 server, no Chromium, a client role or the user missing, a capability discovery does not
 * advertise and a probe did not find), each reason naming what is missing and how to supply it.
 */
import type { Client, TargetConfig } from '../config/load.ts';
import type { BrowserHost } from '../login/chromium.ts';
import type { ClientRole } from '../model/requirements.ts';
import type { Scenario } from '../scenario/scenario.ts';
import { type Capability, type Target, explainMissing } from '../target/target.ts';

function describeCapability(c: Capability): string {
  const [kind, value] = [c.slice(0, c.indexOf(':')), c.slice(c.indexOf(':') + 1)];
  switch (kind) {
    case 'grant':
      return `the grant type "${value}" (grant_types_supported)`;
    case 'response_type':
      return `the response type "${value}" (response_types_supported)`;
    case 'pkce':
      return `the PKCE method ${value} (code_challenge_methods_supported)`;
    case 'auth':
      return `the client authentication method "${value}" (token_endpoint_auth_methods_supported)`;
    case 'endpoint':
      return `a ${value} endpoint`;
    case 'metadata':
      return `${value} (true or a non-empty list in the discovery document)`;
    default:
      return `"${value}" (${kind})`;
  }
}

/** Capabilities a run can observe for a client role when discovery does not advertise them. */
const OBSERVABLE: ReadonlySet<Capability> = new Set<Capability>(['grant:refresh_token']);

/** Whether gating a scenario may sign the user in: a capability it needs is one a probe observes by a code flow. */
export const gateMayLogIn = (requires: { capabilities?: readonly Capability[] } | undefined): boolean =>
  requires?.capabilities?.some((c) => OBSERVABLE.has(c)) ?? false;

/** Every code-flow client role, in the order probed after a scenario's own. */
const PROBE_ROLES: readonly ClientRole[] = ['confidential', 'public', 'confidential2', 'keyed'];

/**
 * The code-flow roles the capability probe tries, until one shows the capability: the scenario's declared roles with
 * a redirect URI first, then every other configured code-flow client (a target that issues refresh tokens to one
 * client issues them: what the full run, whose scenarios observe every client, would find).
 */
function probeRoles(s: Scenario, clients: Partial<Record<ClientRole, Client>>): ClientRole[] {
  const own = s.requires?.roles ?? [];
  return [...new Set([...own, ...PROBE_ROLES])].filter((r) => clients[r]?.redirectUri);
}

/** Why an OIDC-only scenario does not apply to this target (an OAuth 2.0 authorization server), if it does not. */
export function kindSkip(s: Pick<Scenario, 'appliesTo'>, target: Pick<Target, 'kind'>): string | undefined {
  if (s.appliesTo !== 'oidc' || target.kind.protocol !== 'oauth2') return undefined;
  return `an OAuth 2.0 authorization server (${target.kind.why}): OIDC Core does not apply`;
}

/**
 * Why a scenario cannot run against this target and config, or undefined when it can. A missing
 * observable capability (a refresh_token grant) is first looked for by `probe` (one code flow per
 * client role, shared by the run), with every code-flow client until one shows it: a token response
 * with a refresh_token enables it. The skip names every client tried and what it got.
 */
export async function gate(
  s: Scenario,
  clients: Partial<Record<ClientRole, Client>>,
  config: TargetConfig,
  target: Target,
  browser?: BrowserHost,
  probe?: (role: ClientRole) => Promise<string | undefined>,
  refused?: ReadonlyMap<ClientRole, string>,
): Promise<string | undefined> {
  const notApplicable = kindSkip(s, target);
  if (notApplicable) return notApplicable;
  if (s.requires?.browser && browser?.unavailable) return `needs Chromium: ${browser.unavailable}`;
  const missing = (s.requires?.roles ?? []).filter((r) => !clients[r]);
  const refusal = missing.find((r) => refused?.has(r));
  if (refusal) return `needs the ${refusal} client, which was not registered: ${refused!.get(refusal)}`;
  if (missing.length) {
    return (
      `needs the ${missing.join(' and ')} client${missing.length > 1 ? 's' : ''} ` +
      `(${missing.map((r) => `clients.${r}`).join(', ')} in the target config)`
    );
  }
  if (s.requires?.user && !config.user)
    return 'needs a user who can log in (user.username and user.password in the target config)';
  let caps = (s.requires?.capabilities ?? []).filter((c) => !target.supports(c));
  if (!caps.length) return undefined;
  if (!target.discovery) {
    return (
      `the discovery document could not be read (${target.discoveryProblem}), so it cannot ` +
      `tell ${caps.map(describeCapability).join(', ')}`
    );
  }
  const probeNotes: string[] = [];
  if (probe && caps.some((c) => OBSERVABLE.has(c)) && config.user) {
    for (const role of probeRoles(s, clients)) {
      const problem = await probe(role);
      if (problem) probeNotes.push(problem);
      caps = caps.filter((c) => !target.supports(c));
      if (!caps.some((c) => OBSERVABLE.has(c))) break;
    }
  }
  if (!caps.length) return undefined;
  return (
    `${caps.map((c) => explainMissing(target, c)).join('; ')}` +
    `${probeNotes.length ? ` (${probeNotes.join('; ')})` : ''}`
  );
}

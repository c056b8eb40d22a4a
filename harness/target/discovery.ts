/**
 * Fetching the target's metadata (resolveTarget): the OIDC Discovery document at the issuer (or the
 * configured discoveryUrl), else RFC 8414 metadata at its well-known paths, redirects followed within
 * the issuer's origin only, then the Target built from what was found (target.ts) with the origins the
 * run may send to, and none of its endpoints when the document names another issuer.
 */
import type { TargetConfig } from '../config/load.ts';
import { HttpClient } from '../http/client.ts';
import { OriginPolicy } from '../http/origin.ts';
import { Recorder } from '../http/recorder.ts';
import type { Redactor } from '../redact/redact.ts';
import { CLIENT_ROLES } from '../model/requirements.ts';
import type { HttpEvidence } from '../model/results.ts';
import { ENDPOINT_FIELDS, ENDPOINT_NAMES, type Target, metadataKindOf, targetFromDiscovery } from './target.ts';

export function discoveryUrlOf(config: Pick<TargetConfig, 'issuer' | 'discoveryUrl'>): string {
  return config.discoveryUrl ?? `${config.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}

/**
 * Where RFC 8414 metadata is looked for when the OIDC Discovery URL has none: the well-known suffix inserted between
 * the host and the issuer's path (RFC 8414 §3.1), then, for an issuer with a path, appended to it as OIDC Discovery
 * does (a common deployment).
 */
export function rfc8414UrlsOf(issuer: string): string[] {
  const u = new URL(issuer);
  const path = u.pathname.replace(/\/+$/, '');
  const inserted = `${u.origin}/.well-known/oauth-authorization-server${path}`;
  return path ? [inserted, `${u.origin}${path}/.well-known/oauth-authorization-server`] : [inserted];
}

/** Redirects followed at the discovery URL (each within the issuer's origin). */
const MAX_DISCOVERY_REDIRECTS = 5;

/** The origins of the config's protected resource (RFC 9728): the user named them, so the harness may send there. */
export function resourceOrigins(config: Partial<Pick<TargetConfig, 'resource'>>): string[] {
  const r = config.resource;
  if (!r) return [];
  return [...new Set([r.url, ...(r.metadataUrl ? [r.metadataUrl] : [])].map((u) => new URL(u).origin))];
}

/**
 * Fetch discovery. Throws TargetUnreachableError when nothing answers (exit code 3); a document
 * that answers but is unusable gives a Target with discovery null and the problem named. A
 * redirect (301, 302, 303, 307, 308) is followed within the issuer's origin, with a notice naming
 * the final URL and the discoveryUrl to set; a redirect elsewhere is not followed: a set-up
 * problem (an error, never a verdict) that names the Location.
 */
export async function resolveTarget(
  config: Pick<TargetConfig, 'issuer' | 'discoveryUrl' | 'timeouts'> &
    Partial<
      Pick<TargetConfig, 'allowedOrigins' | 'limits' | 'discoveryOverrides' | 'clients' | 'protocol' | 'resource'>
    >,
  redactor: Redactor,
  /** The run plan's request time limit and fetch (harness/run/plan.ts). */
  run: { requestTimeoutMs: number; fetch?: typeof fetch | undefined },
): Promise<Target> {
  const first = discoveryUrlOf(config);
  // A discoveryUrl the config names is the user's choice: its origin is allowed for discovery.
  const base = new OriginPolicy({
    issuer: config.issuer,
    allowedOrigins: [
      ...(config.allowedOrigins ?? []),
      ...(config.discoveryUrl ? [new URL(config.discoveryUrl).origin] : []),
      ...resourceOrigins(config),
    ],
  });
  const recorder = new Recorder(redactor);
  const http = new HttpClient({
    recorder,
    requestTimeoutMs: run.requestTimeoutMs,
    origins: base,
    limits: config.limits,
    fetch: run.fetch,
  });
  const origin = new URL(config.issuer).origin;
  const notices: string[] = [];
  /** GET one metadata URL, following redirects within the issuer's origin. */
  const read = async (start: string, label: string) => {
    let url = start;
    let problem: string | undefined;
    let setup = false;
    let res = await http.get(url, { label });
    for (let hops = 0; [301, 302, 303, 307, 308].includes(res.status); hops++) {
      const location = res.header('location');
      const next =
        location === undefined ? undefined : URL.canParse(location, url) ? new URL(location, url) : undefined;
      if (!next) {
        problem =
          `GET ${url} answered ${res.status} ` +
          `with ${
            location === undefined ? 'no Location' : `the unusable Location ${JSON.stringify(location.slice(0, 200))}`
          }`;
        break;
      }
      if (
        (next.origin !== origin && next.origin !== new URL(first).origin) ||
        !['http:', 'https:'].includes(next.protocol)
      ) {
        problem =
          `GET ${url} answered ${res.status} with Location ${next.href}, outside the issuer's ` +
          `origin ${origin}; the harness does not follow it (if that is the document, set "discoveryUrl": ` +
          `"${next.href}" in the target config)`;
        setup = true;
        break;
      }
      if (hops >= MAX_DISCOVERY_REDIRECTS) {
        problem = `GET ${start} was redirected more than ${MAX_DISCOVERY_REDIRECTS} times (last to ${next.href})`;
        setup = true;
        break;
      }
      url = next.href;
      res = await http.get(url, { label: `${label} (redirected)` });
    }
    if (!problem && res.status !== 200) problem = `GET ${url} answered ${res.status}, not 200`;
    else if (!problem && (!res.json || typeof res.json !== 'object' || Array.isArray(res.json)))
      problem = `GET ${url} did not return a JSON object`;
    return { start, url, res, problem, setup };
  };
  let found = await read(first, 'discovery document');
  // No OIDC Discovery document where the issuer implies one: an OAuth 2.0 authorization server publishes RFC 8414
  // metadata at its own well-known path (RFC 8414 §3).
  if (found.problem && !found.setup && !config.discoveryUrl) {
    const tried = [found.problem];
    for (const candidate of rfc8414UrlsOf(config.issuer)) {
      const next = await read(candidate, 'authorization server metadata (RFC 8414)');
      if (!next.problem || next.setup) {
        found = next;
        break;
      }
      tried.push(next.problem);
    }
    if (found.problem && !found.setup) found = { ...found, problem: tried.join('; ') };
  }
  const { url, res, problem, setup } = found;
  if (url !== found.start && !problem) {
    notices.push(
      `the discovery URL ${found.start} redirected to ${url}; the harness followed it (same origin) — set ` +
        `"discoveryUrl": "${url}" in the target config to go there directly`,
    );
  }
  const evidence = recorder.evidence.filter((e): e is HttpEvidence => e.kind === 'http');
  const discovery = problem ? null : res.body;
  const roles = CLIENT_ROLES.filter((role) => config.clients?.[role]);
  const target = targetFromDiscovery(config.issuer, url, discovery, problem, evidence, {
    ...(config.discoveryOverrides ? { overrides: config.discoveryOverrides } : {}),
    roles,
    problemIsSetup: setup,
    notices,
    ...(config.protocol ? { protocol: config.protocol } : {}),
    ...(metadataKindOf(url) ? {} : { metadataKind: found.start === first ? 'oidc-discovery' : 'rfc8414' }),
  });
  const named = Object.fromEntries(
    ENDPOINT_NAMES.flatMap((name) => {
      const u = target.endpoints[name];
      return u === undefined ? [] : [[ENDPOINT_FIELDS[name], u]];
    }),
  );
  const issuer = discovery?.issuer;
  const unusable =
    discovery && issuer !== config.issuer
      ? `the discovery document names the issuer ${typeof issuer === 'string' ? `"${issuer}"` : 'nothing'}, not the ` +
        `configured "${config.issuer}"; OIDC Discovery §4.3: its contents MUST NOT be used, so the harness sends ` +
        `nothing to its endpoints`
      : undefined;
  // The policy for the run: the issuer's origin and allowedOrigins only (a discoveryUrl elsewhere serves discovery
  // alone).
  target.origins = new OriginPolicy({
    issuer: config.issuer,
    allowedOrigins: [...(config.allowedOrigins ?? []), ...resourceOrigins(config)],
    endpoints: named,
    ...(unusable ? { unusable } : {}),
  });
  return target;
}

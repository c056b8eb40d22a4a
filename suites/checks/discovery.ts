/** Conditions on the discovery document (OIDC Discovery §3, §4.3). */
import { CheckFailure, type Target } from '../../harness/scenario.ts';

/** REQUIRED members of the OP metadata (OIDC Discovery §3). */
export const REQUIRED_DISCOVERY_FIELDS = [
  'issuer', 'authorization_endpoint', 'token_endpoint', 'jwks_uri',
  'response_types_supported', 'subject_types_supported', 'id_token_signing_alg_values_supported',
] as const;

/** The discovery document, or a failure saying why there is none. */
export function expectDiscoveryDocument(target: Target): Record<string, unknown> {
  if (!target.discovery) {
    throw new CheckFailure(`${target.discoveryProblem ?? 'The discovery document could not be read'}; OIDC Discovery §4 requires a JSON object at ${target.discoveryUrl}.`, { requirement: 'OIDC Discovery §4' });
  }
  return target.discovery;
}

export function expectRequiredDiscoveryFields(doc: Record<string, unknown>): void {
  const missing = REQUIRED_DISCOVERY_FIELDS.filter((f) => doc[f] === undefined || doc[f] === null || doc[f] === '');
  if (missing.length) {
    throw new CheckFailure(`The discovery document lacks ${missing.join(', ')}; OIDC Discovery §3 requires ${missing.length > 1 ? 'them' : 'it'}.`, { requirement: 'OIDC Discovery §3' });
  }
  const notArrays = ['response_types_supported', 'subject_types_supported', 'id_token_signing_alg_values_supported']
    .filter((f) => !Array.isArray(doc[f]));
  if (notArrays.length) {
    throw new CheckFailure(`The discovery document's ${notArrays.join(', ')} ${notArrays.length > 1 ? 'are not JSON arrays' : 'is not a JSON array'}; OIDC Discovery §3 requires arrays.`, { requirement: 'OIDC Discovery §3' });
  }
  const algs = doc.id_token_signing_alg_values_supported as unknown[];
  if (!algs.includes('RS256')) {
    throw new CheckFailure(`id_token_signing_alg_values_supported is ${JSON.stringify(algs)} without RS256; OIDC Discovery §3 requires RS256 to be included.`, { requirement: 'OIDC Discovery §3' });
  }
}

/** The document's issuer is exactly the configured issuer (OIDC Discovery §4.3). */
export function expectIssuerMatches(doc: Record<string, unknown>, issuer: string): void {
  if (doc.issuer !== issuer) {
    throw new CheckFailure(`The discovery document names the issuer ${JSON.stringify(doc.issuer)}, not the configured "${issuer}"; OIDC Discovery §4.3 requires them to be identical.`, { requirement: 'OIDC Discovery §4.3' });
  }
}

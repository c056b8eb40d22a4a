/** Conditions on the discovery document (OIDC Discovery §3, §4.3). */
import { CheckFailure, PreconditionError, type RequirementRef, type Target } from '../../harness/scenario.ts';

/** REQUIRED members of the OP metadata (OIDC Discovery §3). */
export const REQUIRED_DISCOVERY_FIELDS = [
  'issuer', 'authorization_endpoint', 'token_endpoint', 'jwks_uri',
  'response_types_supported', 'subject_types_supported', 'id_token_signing_alg_values_supported',
] as const;

/** The discovery document, or a failure saying why there is none. */
export function expectDiscoveryDocument(target: Target, per: RequirementRef): Record<string, unknown> {
  if (!target.discovery && target.discoveryProblemIsSetup) {
    throw new PreconditionError(`${target.discoveryProblem ?? 'the discovery document could not be read'}`);
  }
  if (!target.discovery) {
    throw new CheckFailure(`${target.discoveryProblem ?? 'The discovery document could not be read'}; ${per.label} requires a JSON object at ${target.discoveryUrl}.`, { requirement: per, kind: 'refused-wrongly' });
  }
  return target.discovery;
}

export function expectRequiredDiscoveryFields(doc: Record<string, unknown>, per: RequirementRef): void {
  const missing = REQUIRED_DISCOVERY_FIELDS.filter((f) => doc[f] === undefined || doc[f] === null || doc[f] === '');
  if (missing.length) {
    throw new CheckFailure(`The discovery document lacks ${missing.join(', ')}; ${per.label} requires ${missing.length > 1 ? 'them' : 'it'}.`, { requirement: per, kind: 'refused-wrongly' });
  }
  const notArrays = ['response_types_supported', 'subject_types_supported', 'id_token_signing_alg_values_supported']
    .filter((f) => !Array.isArray(doc[f]));
  if (notArrays.length) {
    throw new CheckFailure(`The discovery document's ${notArrays.join(', ')} ${notArrays.length > 1 ? 'are not JSON arrays' : 'is not a JSON array'}; ${per.label} requires arrays.`, { requirement: per, kind: 'refused-wrongly' });
  }
  const algs = doc.id_token_signing_alg_values_supported as unknown[];
  if (!algs.includes('RS256')) {
    throw new CheckFailure(`id_token_signing_alg_values_supported is ${JSON.stringify(algs)} without RS256; ${per.label} requires RS256 to be included.`, { requirement: per, kind: 'refused-wrongly' });
  }
}

/** The document's issuer is exactly the configured issuer (OIDC Discovery §4.3). */
export function expectIssuerMatches(doc: Record<string, unknown>, issuer: string, per: RequirementRef): void {
  if (doc.issuer !== issuer) {
    throw new CheckFailure(`The discovery document names the issuer ${JSON.stringify(doc.issuer)}, not the configured "${issuer}"; ${per.label} requires them to be identical.`, { requirement: per, kind: 'accepted' });
  }
}

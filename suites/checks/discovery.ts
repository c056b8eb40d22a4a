/** Conditions on the discovery document (OIDC Discovery §3, §4.3). */
import { CheckFailure, PreconditionError, type RequirementRef, type Target } from '../../harness/scenario.ts';

/** REQUIRED members of the OP metadata (OIDC Discovery §3). */
export const REQUIRED_DISCOVERY_FIELDS = [
  'issuer',
  'authorization_endpoint',
  'token_endpoint',
  'jwks_uri',
  'response_types_supported',
  'subject_types_supported',
  'id_token_signing_alg_values_supported',
] as const;

/** The discovery document, or a failure saying why there is none. */
export function expectDiscoveryDocument(target: Target, per: RequirementRef): Record<string, unknown> {
  if (!target.discovery && target.discoveryProblemIsSetup) {
    throw new PreconditionError(`${target.discoveryProblem ?? 'the discovery document could not be read'}`);
  }
  if (!target.discovery) {
    throw new CheckFailure(
      `${target.discoveryProblem ?? 'The discovery document could not be read'}; ${per.label} requires a JSON ` +
        `object at ${target.discoveryUrl}.`,
      { requirement: per, kind: 'refused-wrongly' },
    );
  }
  return target.discovery;
}

export function expectRequiredDiscoveryFields(doc: Record<string, unknown>, per: RequirementRef): void {
  const missing = REQUIRED_DISCOVERY_FIELDS.filter((f) => doc[f] === undefined || doc[f] === null || doc[f] === '');
  if (missing.length) {
    throw new CheckFailure(
      `The discovery document lacks ${missing.join(', ')}; ${per.label} ` +
        `requires ${missing.length > 1 ? 'them' : 'it'}.`,
      { requirement: per, kind: 'refused-wrongly' },
    );
  }
  const notArrays = [
    'response_types_supported',
    'subject_types_supported',
    'id_token_signing_alg_values_supported',
  ].filter((f) => !Array.isArray(doc[f]));
  if (notArrays.length) {
    throw new CheckFailure(
      `The discovery document's ${notArrays.join(', ')} ` +
        `${notArrays.length > 1 ? 'are not JSON arrays' : 'is not a JSON array'}; ${per.label} requires arrays.`,
      { requirement: per, kind: 'refused-wrongly' },
    );
  }
  const algs = doc.id_token_signing_alg_values_supported as unknown[];
  if (!algs.includes('RS256')) {
    throw new CheckFailure(
      `id_token_signing_alg_values_supported is ${JSON.stringify(algs)} without RS256; ${per.label} requires RS256 ` +
        `to be included.`,
      { requirement: per, kind: 'refused-wrongly' },
    );
  }
}

/** The document's issuer is exactly the configured issuer (OIDC Discovery §4.3). */
export function expectIssuerMatches(doc: Record<string, unknown>, issuer: string, per: RequirementRef): void {
  if (doc.issuer !== issuer) {
    throw new CheckFailure(
      `The discovery document names the issuer ${JSON.stringify(doc.issuer)}, not the configured ` +
        `"${issuer}"; ${per.label} requires them to be identical.`,
      { requirement: per, kind: 'accepted' },
    );
  }
}

const isUrl = (value: unknown, schemes = ['https:', 'http:']) =>
  typeof value === 'string' && URL.canParse(value) && schemes.includes(new URL(value).protocol);
const isStringArray = (value: unknown) =>
  Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string');

/**
 * Everything wrong with the REQUIRED members of OIDC Discovery §3 (and the optional ones it
 * types), one sentence each: absent, of the wrong type, or without a value the spec requires.
 */
export function discoveryFieldProblems(doc: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const need = (field: string, ok: (v: unknown) => boolean, want: string) => {
    if (doc[field] === undefined) problems.push(`${field} is missing (REQUIRED)`);
    else if (!ok(doc[field])) problems.push(`${field} is ${JSON.stringify(doc[field])}, not ${want}`);
  };
  need(
    'issuer',
    (v) => isUrl(v) && !new URL(v as string).search && !new URL(v as string).hash,
    'an http(s) URL without query or fragment',
  );
  need('authorization_endpoint', (v) => isUrl(v), 'an http(s) URL');
  const implicitOnly =
    Array.isArray(doc.response_types_supported) &&
    doc.response_types_supported.every((t) => typeof t === 'string' && !t.split(' ').includes('code'));
  if (!implicitOnly) need('token_endpoint', (v) => isUrl(v), 'an http(s) URL');
  need('jwks_uri', (v) => isUrl(v), 'an http(s) URL');
  need(
    'response_types_supported',
    (v) => isStringArray(v) && (v as string[]).includes('code'),
    'a JSON array of strings that includes "code"',
  );
  need(
    'subject_types_supported',
    (v) => isStringArray(v) && (v as string[]).every((t) => t === 'public' || t === 'pairwise'),
    'a JSON array of "public" and/or "pairwise"',
  );
  need(
    'id_token_signing_alg_values_supported',
    (v) => isStringArray(v) && (v as string[]).includes('RS256'),
    'a JSON array of strings that includes "RS256"',
  );
  const optional: Array<[string, (v: unknown) => boolean, string]> = [
    ['userinfo_endpoint', (v) => isUrl(v), 'an http(s) URL'],
    [
      'scopes_supported',
      (v) => isStringArray(v) && (v as string[]).includes('openid'),
      'a JSON array of strings that includes "openid"',
    ],
    ['claims_supported', isStringArray, 'a JSON array of strings'],
    ['grant_types_supported', isStringArray, 'a JSON array of strings'],
    ['claims_parameter_supported', (v) => typeof v === 'boolean', 'a boolean'],
    ['request_parameter_supported', (v) => typeof v === 'boolean', 'a boolean'],
    ['request_uri_parameter_supported', (v) => typeof v === 'boolean', 'a boolean'],
  ];
  for (const [field, ok, want] of optional) {
    if (doc[field] !== undefined && !ok(doc[field]))
      problems.push(`${field} is ${JSON.stringify(doc[field])}, not ${want}`);
  }
  return problems;
}

/** Conditions on the discovery document: OIDC Discovery §3, §4.3 for an OP, RFC 8414 §2, §3.3 for an OAuth 2.0 AS. */
import { CheckFailure, PreconditionError, type RequirementRef, type Target } from '../../harness/scenario/scenario.ts';

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

/**
 * REQUIRED members of authorization server metadata (RFC 8414 §2): authorization_endpoint unless no grant type uses
 * it, token_endpoint unless only the implicit grant is supported (discoveryFieldProblems applies those conditions).
 */
export const RFC8414_REQUIRED_FIELDS = [
  'issuer',
  'authorization_endpoint',
  'token_endpoint',
  'response_types_supported',
] as const;

/** The required members for the target's kind: RFC 8414 §2 for an OAuth 2.0 authorization server, else OIDC's. */
export function requiredFieldsFor(target: Pick<Target, 'kind'>): readonly string[] {
  return target.kind.protocol === 'oauth2' ? RFC8414_REQUIRED_FIELDS : REQUIRED_DISCOVERY_FIELDS;
}

/**
 * The document as the target published it (before the config's discoveryOverrides: they widen what runs, never a
 * verdict about the document), or a failure saying why there is none.
 */
export function expectDiscoveryDocument(target: Target, per: RequirementRef): Record<string, unknown> {
  const published = target.fetchedDiscovery !== undefined ? target.fetchedDiscovery : target.discovery;
  if (published) return published;
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

export function expectRequiredDiscoveryFields(
  doc: Record<string, unknown>,
  per: RequirementRef,
  fields: readonly string[] = REQUIRED_DISCOVERY_FIELDS,
): void {
  const oidc = fields.includes('id_token_signing_alg_values_supported');
  const implicitOnly =
    Array.isArray(doc.response_types_supported) &&
    doc.response_types_supported.length > 0 &&
    doc.response_types_supported.every((t) => typeof t === 'string' && !t.split(' ').includes('code'));
  const missing = fields.filter(
    (f) => (f !== 'token_endpoint' || !implicitOnly) && (doc[f] === undefined || doc[f] === null || doc[f] === ''),
  );
  if (missing.length) {
    throw new CheckFailure(
      `The discovery document lacks ${missing.join(', ')}; ${per.label} ` +
        `requires ${missing.length > 1 ? 'them' : 'it'}.`,
      { requirement: per, kind: 'refused-wrongly' },
    );
  }
  const notArrays = (
    oidc
      ? ['response_types_supported', 'subject_types_supported', 'id_token_signing_alg_values_supported']
      : ['response_types_supported']
  ).filter((f) => !Array.isArray(doc[f]));
  if (notArrays.length) {
    throw new CheckFailure(
      `The discovery document's ${notArrays.join(', ')} ` +
        `${notArrays.length > 1 ? 'are not JSON arrays' : 'is not a JSON array'}; ${per.label} requires arrays.`,
      { requirement: per, kind: 'refused-wrongly' },
    );
  }
  if (!oidc) return;
  const algs = doc.id_token_signing_alg_values_supported;
  if (Array.isArray(algs) && !algs.includes('RS256')) {
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

const isUrl = (value: unknown, schemes = ['https:', 'http:']): value is string =>
  typeof value === 'string' && URL.canParse(value) && schemes.includes(new URL(value).protocol);
const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string');

/** A check of one REQUIRED member that adds what is wrong with it to `problems`. */
const requiredField =
  (doc: Record<string, unknown>, problems: string[]) => (field: string, ok: (v: unknown) => boolean, want: string) => {
    if (doc[field] === undefined) problems.push(`${field} is missing (REQUIRED)`);
    else optionalField(doc, problems)(field, ok, want);
  };

/** The same for an OPTIONAL member: absent is fine, present it must be well typed. */
const optionalField =
  (doc: Record<string, unknown>, problems: string[]) => (field: string, ok: (v: unknown) => boolean, want: string) => {
    if (doc[field] !== undefined && !ok(doc[field]))
      problems.push(`${field} is ${JSON.stringify(doc[field])}, not ${want}`);
  };

/**
 * Everything wrong with the REQUIRED members of RFC 8414 §2 (and the optional ones it types), one sentence each: an
 * OAuth 2.0 authorization server's metadata, judged without any OIDC Discovery field.
 */
export function rfc8414FieldProblems(doc: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const need = requiredField(doc, problems);
  need(
    'issuer',
    (v) => isUrl(v, ['https:', 'http:']) && !new URL(v).search && !new URL(v).hash,
    'a URL without query or fragment',
  );
  need('response_types_supported', isStringArray, 'a JSON array of strings');
  const responseTypes = Array.isArray(doc.response_types_supported) ? doc.response_types_supported : [];
  // authorization_endpoint: "REQUIRED unless no grant types are supported that use the authorization endpoint".
  if (responseTypes.length) need('authorization_endpoint', (v) => isUrl(v), 'an http(s) URL');
  // token_endpoint: "REQUIRED unless only the implicit grant type is supported".
  const grants = Array.isArray(doc.grant_types_supported) ? doc.grant_types_supported : undefined;
  const implicitOnly = grants ? grants.length > 0 && grants.every((g) => g === 'implicit') : false;
  if (!implicitOnly) need('token_endpoint', (v) => isUrl(v), 'an http(s) URL');
  const optional: Array<[string, (v: unknown) => boolean, string]> = [
    ['jwks_uri', (v) => isUrl(v), 'an http(s) URL'],
    ['registration_endpoint', (v) => isUrl(v), 'an http(s) URL'],
    ['revocation_endpoint', (v) => isUrl(v), 'an http(s) URL'],
    ['introspection_endpoint', (v) => isUrl(v), 'an http(s) URL'],
    ['scopes_supported', isStringArray, 'a JSON array of strings'],
    ['response_modes_supported', isStringArray, 'a JSON array of strings'],
    ['grant_types_supported', isStringArray, 'a JSON array of strings'],
    ['token_endpoint_auth_methods_supported', isStringArray, 'a JSON array of strings'],
    ['code_challenge_methods_supported', isStringArray, 'a JSON array of strings'],
  ];
  for (const [field, ok, want] of optional) optionalField(doc, problems)(field, ok, want);
  return problems;
}

/**
 * Everything wrong with the REQUIRED members of OIDC Discovery §3 (and the optional ones it
 * types), one sentence each: absent, of the wrong type, or without a value the spec requires.
 */
export function discoveryFieldProblems(doc: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const need = requiredField(doc, problems);
  need('issuer', (v) => isUrl(v) && !new URL(v).search && !new URL(v).hash, 'an http(s) URL without query or fragment');
  need('authorization_endpoint', (v) => isUrl(v), 'an http(s) URL');
  const implicitOnly =
    Array.isArray(doc.response_types_supported) &&
    doc.response_types_supported.every((t) => typeof t === 'string' && !t.split(' ').includes('code'));
  if (!implicitOnly) need('token_endpoint', (v) => isUrl(v), 'an http(s) URL');
  need('jwks_uri', (v) => isUrl(v), 'an http(s) URL');
  need(
    'response_types_supported',
    (v) => isStringArray(v) && v.includes('code'),
    'a JSON array of strings that includes "code"',
  );
  need(
    'subject_types_supported',
    (v) => isStringArray(v) && v.every((t) => t === 'public' || t === 'pairwise'),
    'a JSON array of "public" and/or "pairwise"',
  );
  need(
    'id_token_signing_alg_values_supported',
    (v) => isStringArray(v) && v.includes('RS256'),
    'a JSON array of strings that includes "RS256"',
  );
  const optional: Array<[string, (v: unknown) => boolean, string]> = [
    ['userinfo_endpoint', (v) => isUrl(v), 'an http(s) URL'],
    [
      'scopes_supported',
      (v) => isStringArray(v) && v.includes('openid'),
      'a JSON array of strings that includes "openid"',
    ],
    ['claims_supported', isStringArray, 'a JSON array of strings'],
    ['grant_types_supported', isStringArray, 'a JSON array of strings'],
    ['claims_parameter_supported', (v) => typeof v === 'boolean', 'a boolean'],
    ['request_parameter_supported', (v) => typeof v === 'boolean', 'a boolean'],
    ['request_uri_parameter_supported', (v) => typeof v === 'boolean', 'a boolean'],
  ];
  for (const [field, ok, want] of optional) optionalField(doc, problems)(field, ok, want);
  return problems;
}

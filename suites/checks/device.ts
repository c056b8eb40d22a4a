/** Conditions on the device authorization grant (RFC 8628). */
import { type Capability, CheckFailure, GRANT, type RequirementRef } from '../../harness/scenario/scenario.ts';

/** What a device scenario needs the target to advertise: the grant, its endpoint, the token endpoint. */
export const DEVICE_CAPABILITIES: readonly Capability[] = [
  `grant:${GRANT.device}`,
  'endpoint:deviceAuthorization',
  'endpoint:token',
];

function isAbsoluteUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    return /^https?:$/.test(new URL(value).protocol);
  } catch {
    return false;
  }
}

const isPositiveNumber = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value > 0;

/**
 * The device authorization response (RFC 8628 §3.2): device_code, user_code, verification_uri
 * and expires_in are REQUIRED; verification_uri_complete and interval are OPTIONAL, but must be
 * well-formed when present (an absent interval means 5 seconds).
 */
export function expectDeviceAuthorizationResponse(body: Record<string, unknown>, per: RequirementRef): void {
  const problems: string[] = [];
  for (const field of ['device_code', 'user_code']) {
    if (typeof body[field] !== 'string' || !body[field])
      problems.push(body[field] === undefined ? `no ${field}` : `a ${field} that is not a non-empty string`);
  }
  if (body.verification_uri === undefined) problems.push('no verification_uri');
  else if (!isAbsoluteUrl(body.verification_uri))
    problems.push(`verification_uri ${JSON.stringify(body.verification_uri)}, not an absolute URL`);
  if (body.verification_uri_complete !== undefined && !isAbsoluteUrl(body.verification_uri_complete)) {
    problems.push(`verification_uri_complete ${JSON.stringify(body.verification_uri_complete)}, not an absolute URL`);
  }
  if (body.expires_in === undefined) problems.push('no expires_in');
  else if (!isPositiveNumber(body.expires_in))
    problems.push(`expires_in ${JSON.stringify(body.expires_in)}, not a positive number of seconds`);
  if (body.interval !== undefined && !isPositiveNumber(body.interval))
    problems.push(`interval ${JSON.stringify(body.interval)}, not a positive number of seconds`);
  if (problems.length) {
    throw new CheckFailure(
      `The device authorization response has ${problems.join(', ')}; ${per.label} requires device_code, user_code, ` +
        `verification_uri (a URI) and expires_in (seconds), and interval, when present, in seconds.`,
      { requirement: per, kind: 'refused-wrongly' },
    );
  }
}

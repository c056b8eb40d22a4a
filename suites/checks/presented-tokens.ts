/**
 * Requests that present a token to the target, where a client or resource server would: userinfo
 * with a Bearer header (RFC 6750 §2.1, OIDC Core §5.3.1), introspection (RFC 7662 §2.1) and
 * revocation (RFC 7009 §2.1). Each is one recorded request; judging the answer is the caller's.
 */
import { decodeJws, type DecodedJws } from '../../generators/index.ts';
import { isRecord } from '../../protocol/guards.ts';
import {
  CheckFailure,
  PreconditionError,
  type Client,
  type ClientRole,
  type HttpResponse,
  type Requirement,
  type RequirementRef,
  type ScenarioContext,
} from '../../harness/scenario/scenario.ts';

/** GET userinfo with `Authorization: Bearer <token>` (the method every resource server supports, RFC 6750 §2.1). */
export function userinfoRequest(
  ctx: ScenarioContext,
  token: string,
  label = 'userinfo request',
): Promise<HttpResponse> {
  const url = ctx.target.endpoints.userinfo;
  if (!url) throw new PreconditionError('the discovery document has no userinfo_endpoint');
  return ctx.http.get(url, { headers: { authorization: `Bearer ${token}` }, label });
}

/** OIDC Core §5.3.2: userinfo always returns sub, the ID token's. */
export const USERINFO_SUB_OIDC_CORE_5_3_2: Requirement = {
  spec: 'OIDC Core',
  section: '5.3.2',
  level: 'MUST',
  party: 'server',
  note: "sub always returned, equal to the ID token's",
};

/** The claims of a userinfo answer: a JSON object, or a signed JWT (OIDC Core §5.3.2); none unless HTTP 200. */
export function userinfoClaims(res: HttpResponse): Record<string, unknown> | undefined {
  const claims = /application\/jwt/i.test(res.header('content-type') ?? '')
    ? readJwt(res.text.trim())?.payload
    : res.json;
  return res.status === 200 && isRecord(claims) ? claims : undefined;
}

export interface IntrospectionOptions {
  hint?: 'access_token' | 'refresh_token';
  /** `omit`: no client authentication at all; `none`: the client_id alone, without its secret. */
  auth?: Client['authMethod'] | 'omit';
  label?: string;
}

/** POST the introspection endpoint as `role` (RFC 7662 §2.1: a form body, the caller authenticated). */
export function introspectionRequest(
  ctx: ScenarioContext,
  role: ClientRole,
  token: string,
  options: IntrospectionOptions = {},
): Promise<HttpResponse> {
  const url = ctx.target.endpoints.introspection;
  if (!url) throw new PreconditionError('the discovery document has no introspection_endpoint');
  return ctx.http.token(
    ctx.client(role),
    { token, token_type_hint: options.hint },
    {
      url,
      encoding: 'form',
      label: options.label ?? 'introspection request',
      ...(options.auth ? { auth: options.auth } : {}),
    },
  );
}

/** POST the revocation endpoint as `role` (RFC 7009 §2.1). */
export function revocationRequest(
  ctx: ScenarioContext,
  role: ClientRole,
  token: string,
  hint?: 'access_token' | 'refresh_token',
): Promise<HttpResponse> {
  const url = ctx.target.endpoints.revocation;
  if (!url) throw new PreconditionError('the discovery document has no revocation_endpoint');
  return ctx.http.token(
    ctx.client(role),
    { token, token_type_hint: hint },
    { url, encoding: 'form', label: `revocation request (${hint ?? 'token'})` },
  );
}

/** A JSON introspection answer (RFC 7662 §2.2), or a failure saying the answer is none. */
export function expectIntrospectionResponse(
  res: HttpResponse,
  when: string,
  per: RequirementRef,
): Record<string, unknown> {
  if (res.status !== 200 || typeof res.body.active !== 'boolean') {
    throw new CheckFailure(
      `${when} got HTTP ${res.status}` +
        `${typeof res.body.error === 'string' ? ` with error=${res.body.error}` : ' without a boolean "active"'}; ` +
        `${per.label} requires HTTP 200 with a JSON object whose "active" is a boolean.`,
      { requirement: per, kind: 'refused-wrongly' },
    );
  }
  return res.body;
}

/** The Bearer challenge of a WWW-Authenticate header (RFC 6750 §3): its auth-params, or undefined. */
export function bearerChallenge(res: HttpResponse): Record<string, string> | undefined {
  const header = res.header('www-authenticate');
  const match = header === undefined ? null : /(?:^|,\s*)Bearer(?=\s|,|$)\s*(.*)$/i.exec(header);
  if (!match) return undefined;
  const params: Record<string, string> = {};
  for (const [, name, quoted, bare] of (match[1] ?? '').matchAll(
    /([A-Za-z_][\w-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g,
  )) {
    if (name && !(name.toLowerCase() in params)) params[name.toLowerCase()] = quoted ?? bare ?? '';
  }
  return params;
}

/** The token taken apart when it is a compact JWS with JSON header and payload (a JWT), else undefined (opaque). */
export function readJwt(token: unknown): DecodedJws | undefined {
  if (typeof token !== 'string') return undefined;
  try {
    return decodeJws(token);
  } catch {
    return undefined;
  }
}

/**
 * Token exchange (RFC 8693) as the `exchange` client: the request, a user's access token as the
 * subject, and the scope a response grants.
 */
import {
  GRANT,
  PreconditionError,
  type HttpResponse,
  type ScenarioContext,
  type ScenarioRequires,
} from '../../harness/scenario/scenario.ts';
import { codeFlowScope } from './scope.ts';
import { TOKEN_TYPE } from '../../protocol/grants.ts';
import { scopeTokens } from '../../protocol/scope.ts';

/** RFC 8693 §3: the token type identifier of an OAuth 2.0 access token. */
export const ACCESS_TOKEN_TYPE = TOKEN_TYPE.accessToken;

export const scopeList = (scope: unknown): string[] => (typeof scope === 'string' ? scopeTokens(scope) : []);

/** RFC 8693 §2.1: subject_token and its type, an access token asked for; `scope` only when given. */
export function exchangeRequest(
  ctx: ScenarioContext,
  subjectToken: string,
  scope?: string[],
  label = 'token exchange',
): Promise<HttpResponse> {
  return ctx.http.token(
    ctx.client('exchange'),
    {
      grant_type: GRANT.exchange,
      subject_token: subjectToken,
      subject_token_type: ACCESS_TOKEN_TYPE,
      requested_token_type: ACCESS_TOKEN_TYPE,
      scope: scope && scope.length > 0 ? scope.join(' ') : undefined,
    },
    { label },
  );
}

/** What exchanging a user's token needs: the exchange client, and a code flow as confidential for the subject. */
export const EXCHANGE_OF_USER_TOKEN: ScenarioRequires = {
  roles: ['exchange', 'confidential'],
  user: true,
  capabilities: [`grant:${GRANT.exchange}`, 'grant:authorization_code', 'endpoint:authorization', 'endpoint:token'],
};

export interface SubjectToken {
  token: string;
  /** The scope granted with it (RFC 6749 §5.1: the response's, else the one requested). */
  scope: string[];
  /** The part of it the exchange client may hold (its configured scope). */
  exchangeable: string[];
}

/** A user's access token from the code flow as `confidential`: the subject a service exchanges. */
export async function userSubjectToken(ctx: ScenarioContext): Promise<SubjectToken> {
  const requested = codeFlowScope(ctx.target, ctx.client('confidential').scope);
  const { tokens } = await ctx.flows.tokens('confidential', { scope: requested });
  const scope = scopeList(tokens.scope ?? requested);
  const mayHold = new Set(scopeList(ctx.client('exchange').scope));
  return { token: tokens.access_token, scope, exchangeable: scope.filter((s) => mayHold.has(s)) };
}

/**
 * Exchanging the genuine subject works: the control that makes a refused forgery mean something.
 * Asks for the exchangeable scope (or none); a refusal is a PreconditionError.
 */
export async function expectSubjectExchangeable(ctx: ScenarioContext, subject: SubjectToken): Promise<void> {
  const res = await exchangeRequest(
    ctx,
    subject.token,
    subject.exchangeable,
    'token exchange of the genuine subject token (control)',
  );
  if (res.status !== 200 || typeof res.body.access_token !== 'string') {
    const error = typeof res.body.error === 'string' ? ` with error=${res.body.error}` : '';
    throw new PreconditionError(
      `exchanging a genuine access token as the exchange client got HTTP ${res.status}${error}, so a refusal of ` +
        `another subject would show nothing`,
    );
  }
}

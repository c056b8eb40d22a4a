/**
 * RFC 6749 §4.1.3 with PKCE (RFC 7636 §4.5–4.6). The code is single use and bound to the
 * client, the redirect_uri, the code_challenge and the nonce; a replay revokes what it issued
 * (RFC 6749 §4.1.2).
 */
import type { ServerContext } from '../context.ts';
import { invalidGrant, invalidRequest } from '../oauth-error.ts';
import { verifierMatches, VERIFIER_FORMAT } from '../pkce.ts';
import { currentBinding } from '../http/dpop.ts';
import { grantAudience } from '../http/resource.ts';
import type { CodeRecord, Successors } from '../store/store.ts';
import type { Grant } from './grant.ts';
import {
  checkThenActDelay,
  consumed,
  grantRevocationUntil,
  intermittentlyAtomic,
  issueUserTokens,
  saveSuccessors,
} from './issue.ts';

export const authorizationCode: Grant = {
  grantType: 'authorization_code',
  parameters: ['code', 'redirect_uri', 'code_verifier'],
  async handler({ server, client, params }) {
    const { flaws, store } = server;
    const { code, code_verifier: verifier } = params;
    if (code === undefined) throw invalidRequest('code is required');
    const record = await store.peekCode(code);
    if (!record) return replayOrUnknown(server, code);

    if (record.clientId !== client.clientId && !flaws.has('code-not-bound-to-client')) {
      throw invalidGrant('the code was issued to another client');
    }
    if (!flaws.has('code-redirect-unchecked')) {
      if (params.redirect_uri === undefined) throw invalidRequest('redirect_uri is required');
      // RFC 6749 §4.1.3: identical; the flaw compares them without their query and port.
      const loose = flaws.has('code-redirect-loose');
      if (!sameRedirectUri(params.redirect_uri, record.redirectUri, loose))
        throw invalidGrant('redirect_uri differs from the authorization request');
    }
    checkPkce(server, record, verifier);
    // RFC 9449 §10: a code bound by dpop_jkt redeems only with a proof by that key ("If they do not match, it MUST
    // reject the request"); the flaw dpop-jkt-unchecked never compares them.
    if (record.dpopJkt !== undefined && currentBinding().jkt !== record.dpopJkt && !flaws.has('dpop-jkt-unchecked'))
      throw invalidGrant('the code is bound to another DPoP key (dpop_jkt): send a DPoP proof by that key');
    // RFC 8707 §2.2: the token is for a resource of the authorization request (the one asked now, or its only one).
    const audience = grantAudience(server, 'code', currentBinding().resource, record.resources);

    const { sub, scope, grantId, authTime } = record;
    // Minted first, saved with the code's consumption in one atomic step (Store Successors).
    const successors: Successors = {};
    const response = await issueUserTokens(
      server,
      {
        client,
        sub,
        scope,
        grantId,
        authTime,
        // The authorization request's scope, which the code's is (every token of it granted or the request refused).
        requestedScope: scope,
        audience,
        ...(record.resources === undefined ? {} : { resources: record.resources }),
        ...(record.nonce === undefined ? {} : { nonce: record.nonce }),
        ...(record.sid === undefined ? {} : { sid: record.sid }),
        ...(record.claims === undefined ? {} : { claims: record.claims }),
        ...(record.hybrid ? { hybridCode: true } : {}),
      },
      successors,
    );
    await redeem(server, record, successors);
    return response;
  },
};

/** Identical strings; `loose` (a flaw) compares them without their query and port. */
function sameRedirectUri(sent: string, used: string, loose: boolean): boolean {
  if (sent === used) return true;
  if (!loose || !URL.canParse(sent) || !URL.canParse(used)) return false;
  const bare = (uri: string) => {
    const url = new URL(uri);
    url.search = '';
    url.port = '';
    return url.href;
  };
  return bare(sent) === bare(used);
}

/** Consumes the code now that every check passed; exactly one redemption may get here. */
async function redeem(server: ServerContext, record: CodeRecord, successors: Successors): Promise<void> {
  const { flaws, store } = server;
  const { code } = record;
  if (flaws.has('code-reuse-allowed')) return saveSuccessors(server, successors);
  // The flaws' check-then-act: a racer whose consumption found the code gone keeps its tokens all the same.
  const unchecked = async () => {
    if (!(await store.consumeCode(code, successors))) await saveSuccessors(server, successors);
  };
  if (flaws.has('race-code-intermittent')) {
    const atomic = async () => {
      if (!(await store.consumeCode(code, successors))) await replayOrUnknown(server, code);
    };
    return intermittentlyAtomic(server, 'code', code, atomic, unchecked);
  }
  if (flaws.has('race-code')) {
    // Check-then-act: the code was read above; yielding before the delete lets every racer through.
    await checkThenActDelay();
    return unchecked();
  }
  const consume = () => store.consumeCode(code, successors);
  if (!(await consumed(server, successors, consume, record))) await replayOrUnknown(server, code);
}

/** A code that is not redeemable: if it was already used, revoke everything it issued. */
async function replayOrUnknown(server: ServerContext, code: string): Promise<never> {
  const grantId = await server.store.usedCodeGrant(code);
  if (grantId === undefined) throw invalidGrant('the code is invalid or has expired');
  if (!server.flaws.has('code-reuse-keeps-tokens'))
    await server.store.revokeGrant(grantId, grantRevocationUntil(server));
  throw invalidGrant('the code has already been used; the tokens it issued are revoked');
}

/** RFC 7636 §4.6 and RFC 9700 §2.1.1: a challenge must be met; a verifier without a challenge is refused. */
function checkPkce(server: ServerContext, record: CodeRecord, verifier: string | undefined): void {
  const { flaws } = server;
  if (record.codeChallenge === undefined) {
    if (verifier !== undefined && !flaws.has('pkce-downgrade')) {
      throw invalidGrant('code_verifier given, but the authorization request had no code_challenge');
    }
    return;
  }
  if (verifier === undefined) {
    if (flaws.has('pkce-verifier-optional')) return;
    throw invalidGrant('code_verifier is required');
  }
  if (!VERIFIER_FORMAT.test(verifier) && !flaws.has('pkce-verifier-format-unchecked')) {
    throw invalidGrant('code_verifier must be 43 to 128 unreserved characters (RFC 7636 section 4.1)');
  }
  const method = record.codeChallengeMethod ?? 'S256';
  // The flaw took a challenge that came without a method (endpoints/authorize.ts) and never compares it.
  if (method === 'plain' && flaws.has('pkce-default-method-ignored')) return;
  if (!verifierMatches(verifier, record.codeChallenge, method) && !flaws.has('pkce-verifier-ignored')) {
    throw invalidGrant('code_verifier does not match the code_challenge');
  }
}

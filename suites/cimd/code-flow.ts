import { CheckFailure, GRANT, defineScenario } from '../../harness/scenario/scenario.ts';
import { authorizationAnswer } from '../checks/authorization.ts';
import { authorizeAsDocument, cimdPremise, cimdRedirectUri, publishSound } from '../checks/cimd.ts';

/**
 * The positive control of CIMD: a client identified by the URL of its metadata document (client_id = that URL,
 * token_endpoint_auth_method "none") gets a code with PKCE S256 and redeems it, at an authorization server that
 * advertises client_id_metadata_document_supported. It claims no flaw: the negative cimd.* scenarios rest on it.
 */
export default defineScenario({
  id: 'cimd.code-flow',
  title: 'A client identified by its metadata document URL completes the code flow with PKCE S256',
  requirements: {
    cimd4: {
      spec: 'CIMD',
      section: '4',
      level: 'SHOULD',
      party: 'server',
      note: 'the authorization server SHOULD fetch the document indicated by the client_id',
    },
    mcp20251125Overview: {
      spec: 'MCP 2025-11-25',
      section: 'Overview',
      level: 'SHOULD',
      party: 'server',
      note: 'Authorization servers SHOULD support OAuth Client ID Metadata Documents',
    },
    mcp20260728Overview: {
      spec: 'MCP 2026-07-28',
      section: 'Overview',
      level: 'SHOULD',
      party: 'server',
      note: 'Authorization servers SHOULD support OAuth Client ID Metadata Documents',
    },
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  requires: { roles: ['public'], user: true, capabilities: ['grant:authorization_code', 'endpoint:token'] },
  async run(ctx) {
    const cimd = cimdPremise(ctx);
    const redirectUri = cimdRedirectUri(ctx);
    const clientId = publishSound(cimd, redirectUri);
    const outcome = await authorizeAsDocument(ctx, clientId, redirectUri);
    const answer = authorizationAnswer(outcome, `the authorization request with client_id ${clientId}`);
    if (answer.kind !== 'code')
      throw new CheckFailure(
        `An authorization request with client_id ${clientId}, a sound Client ID Metadata Document, was refused ` +
          `(${answer.how}) by a server that advertises client_id_metadata_document_supported`,
        { kind: 'refused-wrongly' },
      );
    const client = { ...ctx.client('public'), clientId, redirectUri, authMethod: 'none' as const };
    const res = await ctx.http.token(
      client,
      { grant_type: GRANT.code, code: answer.code, redirect_uri: redirectUri, code_verifier: outcome.pkce.verifier },
      { label: 'token request of the document-identified client' },
    );
    if (res.status !== 200 || typeof res.body.access_token !== 'string')
      throw new CheckFailure(
        `The token request of the client identified by ${clientId} (its code, the code_verifier) got HTTP ` +
          `${res.status}${typeof res.body.error === 'string' ? ` error=${res.body.error}` : ''}, not an access token`,
        { kind: 'refused-wrongly' },
      );
  },
});

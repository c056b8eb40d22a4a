import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import { cimdDocument } from '../../harness/cimd/documents.ts';
import type { CimdBody } from '../../harness/cimd/server.ts';
import { authorizationAnswer } from '../checks/authorization.ts';
import {
  CIMD_ABORT,
  authorizeAsDocument,
  cimdPremise,
  cimdRedirectUri,
  expectSoundDocumentWorks,
  mcpCimdRequirements,
} from '../checks/cimd.ts';

/** A document far above the 5 kilobytes CIMD §6.6 recommends as the maximum. */
const LARGE_BYTES = 100 * 1024;

/**
 * A client_id whose document is unusable identifies no client: text that is not JSON, a JSON object without
 * redirect_uris (which MCP lists among the required properties), or a document of 100 KiB (CIMD §6.6: limit the
 * response size, 5 kilobytes recommended). Each authorization request must be refused (CIMD §4.3: abort it), and
 * never with a 5xx: the server informs the user of an invalid client (RFC 6749 §4.1.2.1). Control: a sound document
 * gets a code.
 */
export default defineScenario({
  id: 'cimd.bad-document',
  title: 'A metadata document that is not JSON, lacks redirect_uris or is too large is refused, never with a 5xx',
  requirements: {
    cimd4_3: CIMD_ABORT,
    cimd6_6: {
      spec: 'CIMD',
      section: '6.6',
      level: 'SHOULD',
      party: 'server',
      note: 'limit the response size (5 kilobytes recommended)',
    },
    rfc6749_4_1_2_1: {
      spec: 'RFC 6749',
      section: '4.1.2.1',
      level: 'SHOULD',
      party: 'server',
      note: 'an invalid client identifier: inform the resource owner of the error',
    },
    ...mcpCimdRequirements('validate the document is valid JSON and contains the required fields'),
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  requires: { roles: ['public'], user: true, capabilities: ['grant:authorization_code'] },
  catches: ['cimd-bad-document-accepted'],
  async run(ctx) {
    const cimd = cimdPremise(ctx);
    const redirectUri = cimdRedirectUri(ctx);
    const mcp = ctx.profile === 'mcp-2025-11-25' ? ctx.req.mcp20251125Impl : ctx.req.mcp20260728Impl;
    const structural = ctx.applies(mcp) ? mcp : ctx.req.cimd4_3;
    const cases: { what: string; body: CimdBody; per: typeof structural }[] = [
      { what: 'text that is not JSON', body: '{"client_id": not json', per: structural },
      {
        what: 'a JSON object without redirect_uris',
        body: (url) => {
          const { redirect_uris: _omitted, ...rest } = cimdDocument(url, 'public', redirectUri);
          return rest;
        },
        per: structural,
      },
      {
        what: `a document of ${LARGE_BYTES / 1024} KiB`,
        body: (url) => ({ ...cimdDocument(url, 'public', redirectUri), padding: 'x'.repeat(LARGE_BYTES) }),
        per: ctx.req.cimd6_6,
      },
    ];
    const refusals: string[] = [];
    for (const { what, body, per } of cases) {
      await ctx.softly(async () => {
        const url = cimd.publish(body);
        const outcome = await authorizeAsDocument(ctx, url, redirectUri);
        if (outcome.kind === 'page' && outcome.status >= 500)
          throw new CheckFailure(
            `The authorization request with client_id ${url} (${what}) answered HTTP ${outcome.status}: a server ` +
              'error, not an error shown to the user',
            { requirement: ctx.req.rfc6749_4_1_2_1, kind: 'refused-wrongly' },
          );
        const answer = authorizationAnswer(outcome, `the authorization request with client_id ${url} (${what})`);
        if (answer.kind === 'code')
          throw new CheckFailure(
            `An authorization request with client_id ${url}, whose document is ${what}, got a code`,
            { requirement: per },
          );
        refusals.push(`${what}: ${answer.how}`);
      });
    }
    await expectSoundDocumentWorks(
      ctx,
      cimd,
      redirectUri,
      `the unusable documents were refused (${refusals.join('; ')})`,
    );
  },
});

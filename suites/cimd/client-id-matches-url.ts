import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import { cimdDocument } from '../../harness/cimd/documents.ts';
import { authorizationAnswer } from '../checks/authorization.ts';
import {
  CIMD_ABORT,
  authorizeAsDocument,
  cimdPremise,
  cimdRedirectUri,
  expectSoundDocumentWorks,
  mcpCimdRequirements,
} from '../checks/cimd.ts';

/**
 * A Client ID Metadata Document whose client_id is not its own URL (CIMD §4.1: simple string comparison) must not
 * identify a client: anyone could then copy another client's document and be taken for it. The authorization request
 * with that URL as client_id must be refused, no code issued. Control: a sound document gets a code.
 */
export default defineScenario({
  id: 'cimd.client-id-matches-url',
  title: 'A metadata document whose client_id differs from its URL is refused at the authorization endpoint',
  requirements: {
    // "The client metadata document MUST contain a client_id property whose value MUST match the URL": the document's.
    cimd4_1: {
      spec: 'CIMD',
      section: '4.1',
      level: 'MUST',
      party: 'client',
      note: "the document's client_id matches its URL by simple string comparison",
    },
    cimd4_3: CIMD_ABORT,
    ...mcpCimdRequirements("validate that the fetched document's client_id matches the URL exactly"),
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: { roles: ['public'], user: true, capabilities: ['grant:authorization_code'] },
  catches: ['cimd-client-id-unchecked'],
  async run(ctx) {
    const cimd = cimdPremise(ctx);
    const redirectUri = cimdRedirectUri(ctx);
    let other = '';
    const url = cimd.publish((own) => {
      other = `${own.replace(/\.json$/, '')}-impostor.json`;
      return cimdDocument(other, 'public', redirectUri);
    });
    const answer = authorizationAnswer(
      await authorizeAsDocument(ctx, url, redirectUri),
      `the authorization request with client_id ${url}`,
    );
    if (answer.kind === 'code')
      throw new CheckFailure(
        `An authorization request with client_id ${url}, whose document names client_id ${other}, got a code; the ` +
          "document's client_id must match its URL exactly",
      );
    await expectSoundDocumentWorks(
      ctx,
      cimd,
      redirectUri,
      `the request with a document whose client_id differs from its URL ${answer.how}`,
    );
  },
});

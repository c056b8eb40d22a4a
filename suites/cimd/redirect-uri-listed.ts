import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import { authorizationAnswer } from '../checks/authorization.ts';
import {
  authorizeAsDocument,
  cimdPremise,
  cimdRedirectUri,
  expectSoundDocumentWorks,
  publishSound,
  mcpCimdRequirements,
} from '../checks/cimd.ts';

/**
 * A document's redirect_uris are the client's registered redirect URIs (CIMD §4.5): a request with any other
 * redirect_uri must be refused, and the user agent never sent there, with a code or with an error (RFC 6749
 * §3.1.2.4, §4.1.2.1). Control: the listed redirect URI gets a code.
 */
export default defineScenario({
  id: 'cimd.redirect-uri-listed',
  title: "A redirect_uri the client's metadata document does not list is refused and never redirected to",
  requirements: {
    cimd4_5: {
      spec: 'CIMD',
      section: '4.5',
      level: 'MUST',
      party: 'server',
      note: 'the redirect URI in a request is an exact match of a registered (listed) one',
    },
    rfc6749_4_1_2_1: {
      spec: 'RFC 6749',
      section: '4.1.2.1',
      level: 'MUST',
      party: 'server',
      note: 'a mismatching redirection URI: MUST NOT automatically redirect the user-agent to it',
    },
    ...mcpCimdRequirements('redirect URIs checked against those in the document'),
  },
  severity: 'critical',
  appliesTo: 'oauth2',
  requires: { roles: ['public'], user: true, capabilities: ['grant:authorization_code'] },
  catches: ['cimd-redirect-unchecked'],
  async run(ctx) {
    const cimd = cimdPremise(ctx);
    const listed = cimdRedirectUri(ctx);
    const url = publishSound(cimd, listed);
    const unlisted = new URL('/cimd-unlisted/callback', listed).href;
    const outcome = await authorizeAsDocument(ctx, url, unlisted);
    if (outcome.kind === 'redirect')
      throw new CheckFailure(
        `An authorization request with client_id ${url} and redirect_uri ${unlisted}, which its document does not ` +
          `list (it lists ${listed}), was redirected there ${outcome.params.code ? 'with a code' : 'with no code'}` +
          `${outcome.params.error ? ` (error=${outcome.params.error})` : ''}`,
      );
    const answer = authorizationAnswer(outcome, `the authorization request with redirect_uri ${unlisted}`);
    await expectSoundDocumentWorks(
      ctx,
      cimd,
      listed,
      `the request with a redirect_uri the document does not list ${
        answer.kind === 'refused' ? answer.how : 'got a code'
      }`,
    );
  },
});

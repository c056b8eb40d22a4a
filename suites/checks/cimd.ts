/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document-00) from the scenarios' side: the
 * premise (the authorization server advertises support, CIMD §5, and the run has a document listener, ctx.cimd), a
 * document of the harness's for a redirect URI, an authorization request with a document URL as client_id (PKCE
 * S256), and the control: a sound document gets a code from the same walk.
 */
import type { CimdPublisher } from '../../harness/cimd/server.ts';
import { cimdDocument } from '../../harness/cimd/documents.ts';
import {
  type AuthorizeResult,
  JudgementError,
  type Pkce,
  PreconditionError,
  type ScenarioContext,
} from '../../harness/scenario/scenario.ts';
import { authorizationAnswer } from './authorization.ts';

/**
 * The newest revisions' server rule for CIMD ("Implementation Requirements", the same list in 2025-11-25 and
 * 2026-07-28), one item of it as the note.
 */
export function mcpCimdRequirements(note: string) {
  const rule = { section: 'Implementation Requirements', level: 'MUST', party: 'server', note } as const;
  return {
    mcp20251125Impl: { spec: 'MCP 2025-11-25', ...rule },
    mcp20260728Impl: { spec: 'MCP 2026-07-28', ...rule },
  } as const;
}

/** CIMD §4.3: "If fetching the metadata document fails, the authorization server SHOULD abort the ... request". */
export const CIMD_ABORT = {
  spec: 'CIMD',
  section: '4.3',
  level: 'SHOULD',
  party: 'server',
  note: 'if fetching the metadata document fails, abort the authorization request',
} as const;

/** The run's document listener, or a skip naming the missing premise. */
export function cimdPremise(ctx: ScenarioContext): CimdPublisher {
  // The profile counts CIMD nowhere there (harness/model/requirements.ts profileCounts): its sentences are not judged.
  if (ctx.profile === 'mcp-2025-06-18')
    return ctx.skip('MCP revision 2025-06-18 has no Client ID Metadata Documents (they come with 2025-11-25)');
  if (ctx.target.discovery?.client_id_metadata_document_supported !== true)
    return ctx.skip(
      'the target does not advertise client_id_metadata_document_supported (CIMD §5): it does not take Client ID ' +
        'Metadata Document URLs as client_id',
    );
  if (!ctx.cimd)
    return ctx.skip(
      'the run has no Client ID Metadata Document listener: add a "cimd" section with a baseUrl the authorization ' +
        'server can fetch (docs/target-config.md); a loopback target gets one by itself',
    );
  return ctx.cimd;
}

/** The redirect URI the scenario's documents list: the public client's (the harness catches a redirect there). */
export function cimdRedirectUri(ctx: ScenarioContext): string {
  const uri = ctx.client('public').redirectUri;
  if (!uri) throw new PreconditionError('the public client has no redirect URI for a document to list');
  return uri;
}

/** A sound document for `redirectUri`, published; its URL. */
export function publishSound(cimd: CimdPublisher, redirectUri: string): string {
  return cimd.publish((url) => cimdDocument(url, 'public', redirectUri));
}

/** The authorization request with `clientId` (a document URL) and `redirectUri`, PKCE S256, walked as the user. */
export async function authorizeAsDocument(
  ctx: ScenarioContext,
  clientId: string,
  redirectUri: string,
): Promise<AuthorizeResult & { pkce: Pkce }> {
  const pkce = ctx.pkce.create();
  const outcome = await ctx.authorize('public', {
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
  });
  return { ...outcome, pkce };
}

/**
 * The control: a sound document for the same redirect URI gets a code, so the refusal the scenario saw was for what
 * it changed; else the scenario cannot judge (JudgementError).
 */
export async function expectSoundDocumentWorks(
  ctx: ScenarioContext,
  cimd: CimdPublisher,
  redirectUri: string,
  refusal: string,
): Promise<void> {
  const url = publishSound(cimd, redirectUri);
  let answer: ReturnType<typeof authorizationAnswer>;
  try {
    answer = authorizationAnswer(await authorizeAsDocument(ctx, url, redirectUri), 'the control with a sound document');
  } catch (error) {
    if (!(error instanceof PreconditionError)) throw error;
    throw new JudgementError(`${refusal}, but the control with a sound document failed too (${error.message})`);
  }
  if (answer.kind !== 'code')
    throw new JudgementError(
      `${refusal}, but a sound document (${url}) was refused too (${answer.how}): the refusal cannot be put down ` +
        'to what the scenario changed',
    );
  ctx.evidence.note(`A sound document at ${url} got a code: the refusal was for what the scenario changed.`);
}

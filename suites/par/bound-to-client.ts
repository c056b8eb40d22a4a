import { CheckFailure, JudgementError, PreconditionError, defineScenario } from '../../harness/scenario/scenario.ts';
import {
  CODE_FLOW_ROLES,
  authorizationAnswer,
  codeFlowClient,
  findClient,
  openPushed,
  pushCodeRequest,
} from '../checks/index.ts';

export default defineScenario({
  id: 'par.bound-to-client',
  title: 'A pushed request_uri works only for the client that pushed it',
  requirements: {
    rfc9126_4: {
      spec: 'RFC 9126',
      section: '4',
      level: 'MUST',
      party: 'server',
      note: 'the request_uri was pushed by the client named by client_id',
    },
    fapi2_5_3_2_2: {
      spec: 'FAPI 2.0 SP',
      section: '5.3.2.2',
      level: 'MUST',
      party: 'server',
      note: 'client-authenticated pushed authorization requests',
    },
  },
  severity: 'critical',
  appliesTo: 'oauth2',
  requires: {
    optionalRoles: ['keyed', 'confidential', 'public', 'confidential2'],
    user: true,
    capabilities: ['endpoint:pushedAuthorization', 'endpoint:authorization'],
  },
  catches: ['par-not-client-bound'],
  async run(ctx) {
    const owner = codeFlowClient(ctx) ?? ctx.skip('needs a code-flow client with a redirect URI');
    const other =
      findClient(
        ctx,
        ['confidential2', ...CODE_FLOW_ROLES, 'keyed'],
        (c) => c.clientId !== owner.clientId && !!c.redirectUri,
      ) ?? ctx.skip('needs a second code-flow client (another role with a redirect URI)');
    const pushed = await pushCodeRequest(ctx, owner);
    const outcome = await openPushed(ctx, other.clientId, pushed.requestUri, [owner.redirectUri, other.redirectUri]);
    const answer = authorizationAnswer(
      outcome,
      `The authorization request as ${other.role} with ${owner.role}'s request_uri`,
    );
    if (answer.kind === 'code') {
      throw new CheckFailure(
        `An authorization request with client_id=${other.clientId} and the request_uri that ${owner.clientId} ` +
          `pushed was processed and gave a code; ${ctx.req.rfc9126_4} requires the request_uri to belong to the ` +
          `client that uses it.`,
        { requirement: ctx.req.rfc9126_4 },
      );
    }
    // The refusal shows the binding only if the other client's own pushed request gets a code.
    let control: string;
    try {
      const own = await pushCodeRequest(ctx, other);
      const reopened = await openPushed(ctx, other.clientId, own.requestUri, [other.redirectUri]);
      const mine = authorizationAnswer(reopened, `The authorization request as ${other.role} with its own request_uri`);
      control = mine.kind === 'code' ? '' : mine.how;
    } catch (error) {
      if (!(error instanceof PreconditionError || error instanceof CheckFailure)) throw error;
      control = `failed (${error.message})`;
    }
    if (control) {
      throw new JudgementError(
        `as ${other.role}, ${owner.role}'s request_uri ${answer.how}, but ${other.role}'s own pushed request ` +
          `${control} too, so the refusal cannot be put down to the request_uri belonging to another client`,
      );
    }
    ctx.evidence.note(
      `As ${other.role}, ${owner.role}'s request_uri ${answer.how}; its own pushed request got a code.`,
    );
  },
});

import { CheckFailure, PreconditionError, defineScenario } from '../../harness/scenario/scenario.ts';
import { expectRefusalIsFor, metaRefresh } from '../checks/index.ts';
import { mcpRequirement } from '../../harness/model/mcp-requirement.ts';

/**
 * RFC 6749 §4.1.2.1: with an invalid redirect_uri the server informs the resource owner and MUST NOT
 * redirect there. The request carries a second error (an unsupported response_type), the kind a
 * server would otherwise report by redirecting (RFC 9700 §4.11.2 attack 1), so a server that
 * reports errors before it has trusted the redirect_uri sends them to the attacker. The walk
 * follows redirects only within the IdP's origin; the attacker's URI is never fetched.
 */
const ATTACKER = new URL('https://attacker.example/oauth/callback');

export default defineScenario({
  id: 'redirect.no-open-redirect',
  title: 'An erroneous request with an unregistered redirect_uri gets an error page, never a redirect there',
  requirements: {
    rfc6749_4_1_2_1: {
      spec: 'RFC 6749',
      section: '4.1.2.1',
      level: 'MUST',
      party: 'server',
      note: 'never redirect to an invalid redirection URI',
    },
    rfc9700_4_11_2: {
      spec: 'RFC 9700',
      section: '4.11.2',
      level: 'MUST',
      party: 'server',
      note: 'the authorization server as open redirector',
    },
    specErrors: {
      spec: 'SPEC',
      section: 'Errors',
      level: 'MUST',
      party: 'server',
      note: 'rule 2: a redirect_uri that is not registered is denied',
    },
    mcp_2025_06_18: mcpRequirement('redirect/untrusted', '2025-06-18'),
    mcp_2025_11_25: mcpRequirement('redirect/untrusted', '2025-11-25'),
    mcp_2026_07_28: mcpRequirement('redirect/untrusted', '2026-07-28'),
  },
  severity: 'critical',
  appliesTo: 'oauth2',
  requires: { roles: ['confidential'], user: true, capabilities: ['endpoint:authorization'] },
  catches: ['redirect-open-on-error'],
  async run(ctx) {
    const registered = ctx.client('confidential').redirectUri;
    if (registered && new URL(registered).origin === ATTACKER.origin)
      throw new PreconditionError(
        `the confidential client's redirect URI is on ${ATTACKER.origin}, the origin this check uses as the attacker's`,
      );
    const idp = new URL(ctx.target.endpoints.authorization!).origin;
    const what =
      `An authorization request with the unregistered redirect_uri ${ATTACKER.href} and ` +
      `response_type=unsupported_type`;
    const outcome = await ctx.authorize(
      'confidential',
      { redirect_uri: ATTACKER.href, response_type: 'unsupported_type' },
      { stayWithin: idp, session: 'shared' },
    );
    const redirectedTo = outcome.kind === 'redirect' ? outcome.url : outcome.location;
    const refresh = outcome.kind === 'page' ? metaRefresh(outcome.body, outcome.url) : undefined;
    for (const target of [redirectedTo, refresh]) {
      if (target && new URL(target).origin === ATTACKER.origin) {
        const how = target === refresh ? 'an error page that refreshes to' : 'a redirect to';
        const error =
          new URL(target).searchParams.get('error') ?? new URLSearchParams(new URL(target).hash.slice(1)).get('error');
        throw new CheckFailure(
          `${what} got ${how} ${ATTACKER.origin}${error ? ` with error=${error}` : ''}; RFC 6749 §4.1.2.1 forbids ` +
            `redirecting to an invalid redirection URI and requires informing the resource owner instead.`,
        );
      }
    }
    if (outcome.kind === 'redirect') {
      ctx.evidence.note(
        `The error went to the client's registered redirect_uri ` +
          `(${outcome.params.error ? `error=${outcome.params.error}` : 'no error code'}), not to the unregistered one.`,
      );
    } else if (outcome.location) {
      throw new PreconditionError(
        `the IdP redirected to ${outcome.location}, outside its origin ${idp}; that is not the unregistered ` +
          `redirect_uri, and the check does not follow it further`,
      );
    } else {
      ctx.evidence.note(
        `The IdP showed a page (HTTP ${outcome.status}${outcome.headline ? ` "${outcome.headline}"` : ''}) and did ` +
          `not redirect.`,
      );
      // The control: the page counts only if a sound request is redirected to the registered URI in the same run.
      await expectRefusalIsFor(
        ctx,
        'confidential',
        'with an unregistered redirect_uri was kept at the IdP',
        'the unregistered redirect_uri',
      );
    }
  },
});

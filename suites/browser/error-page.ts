import { CheckFailure, PreconditionError, defineScenario } from '../../harness/scenario/scenario.ts';
import { expectRefusalIsFor, metaRefresh } from '../checks/index.ts';

/**
 * RFC 6749 §4.1.2.1 in a real browser: an authorization request with an unregistered redirect_uri
 * (and a second error, an unsupported response_type, the kind a server would otherwise report by
 * redirecting — RFC 9700 §4.11.2) must end on the IdP's error page. The browser records every
 * request the page makes — navigations, redirects, scripts, images, refreshes — and blocks any
 * that leaves the IdP's origin, so the attacker's URI is never loaded; one request there fails it.
 */
const ATTACKER = new URL('https://attacker.example/oauth/callback');

export default defineScenario({
  id: 'browser.error-page',
  title:
    'A request with an unregistered redirect_uri shows an error page in Chromium, and the browser never leaves the IdP',
  requirements: {
    neverRedirect: {
      spec: 'RFC 6749',
      section: '4.1.2.1',
      level: 'MUST',
      party: 'server',
      note: 'never redirect to an invalid redirection URI',
    },
    informOwner: {
      spec: 'RFC 6749',
      section: '4.1.2.1',
      level: 'SHOULD',
      party: 'server',
      note: 'inform the resource owner',
    },
    rfc9700_4_11_2: {
      spec: 'RFC 9700',
      section: '4.11.2',
      level: 'MUST',
      party: 'server',
      note: 'the authorization server as open redirector',
    },
  },
  severity: 'critical',
  appliesTo: 'oauth2',
  requires: { browser: true, roles: ['confidential'], user: true, capabilities: ['endpoint:authorization'] },
  catches: ['redirect-open-on-error'],
  async run(ctx) {
    const registered = ctx.client('confidential').redirectUri;
    if (registered && new URL(registered).origin === ATTACKER.origin)
      throw new PreconditionError(
        `the confidential client's redirect URI is on ${ATTACKER.origin}, the origin this check uses as the attacker's`,
      );
    const idp = new URL(ctx.target.endpoints.authorization!).origin;
    const what =
      `An authorization request in Chromium with the unregistered redirect_uri ${ATTACKER.href} and ` +
      `response_type=unsupported_type`;
    const outcome = await ctx.browser.authorize(
      'confidential',
      { redirect_uri: ATTACKER.href, response_type: 'unsupported_type' },
      { stayWithin: idp },
    );
    const requests = outcome.requests ?? [];
    ctx.evidence.note(
      requests.map((r) => `${r.blocked ? 'blocked ' : ''}${r.method} ${r.type} ${r.url}`).join('\n') || '(none)',
      'requests the page made',
    );
    const refresh = outcome.kind === 'page' ? metaRefresh(outcome.body, outcome.url) : undefined;
    const atAttacker = (url: string) => URL.canParse(url) && new URL(url).origin === ATTACKER.origin;
    const sent = requests.find((r) => atAttacker(r.url));
    const toAttacker = sent?.url ?? (refresh && atAttacker(refresh) ? refresh : undefined);
    if (toAttacker) {
      const how = !sent
        ? 'an error page that refreshes there'
        : sent.navigation
          ? 'a redirect'
          : `a ${sent.type.toLowerCase()} request from the page`;
      const url = new URL(toAttacker);
      const error = url.searchParams.get('error') ?? new URLSearchParams(url.hash.slice(1)).get('error');
      throw new CheckFailure(
        `${what} sent the browser to ${ATTACKER.origin} (${how}${error ? `, with error=${error}` : ''}; the harness ` +
          `stopped it there); RFC 6749 §4.1.2.1 forbids redirecting to an invalid redirection URI and requires ` +
          `informing the resource owner instead.`,
        { requirement: ctx.req.neverRedirect, kind: 'accepted' },
      );
    }
    if (outcome.kind === 'page' && outcome.location) {
      throw new PreconditionError(
        `the IdP sent the browser to ${outcome.location}, outside its origin ${idp}; that is not the unregistered ` +
          `redirect_uri, and the check goes no further`,
      );
    }
    if (outcome.kind === 'redirect') {
      throw new CheckFailure(
        `${what} sent the browser to the client's registered redirect_uri ` +
          `(${outcome.params.error ? `error=${outcome.params.error}` : 'no error code'}) instead of showing an ` +
          `error page; RFC 6749 §4.1.2.1 says the authorization server should inform the resource owner.`,
        { requirement: ctx.req.informOwner, kind: 'refused-wrongly' },
      );
    }
    ctx.evidence.note(
      `The browser stayed at ${idp} on a page ` +
        `(HTTP ${outcome.status}${outcome.headline ? ` "${outcome.headline}"` : ''}).`,
    );
    // The control: the page counts only if a sound request is redirected to the registered URI in the same run.
    await expectRefusalIsFor(
      ctx,
      'confidential',
      'with an unregistered redirect_uri kept the browser at the IdP',
      'the unregistered redirect_uri',
    );
  },
});

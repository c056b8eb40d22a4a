import { redirectBase } from '../../harness/login/driver.ts';
import { CheckFailure, PreconditionError, defineScenario, readPage } from '../../harness/scenario/scenario.ts';
import { CODE_FLOW_CAPABILITIES, endSessionWalk, signIn } from '../checks/index.ts';

export default defineScenario({
  id: 'logout.front-channel',
  title:
    "Front-channel logout: the OP's logout page loads the client's frontchannel_logout_uri, with iss and sid when " +
    'the client requires them',
  requirements: {
    fcLogout_4: {
      spec: 'OIDC Front-Channel Logout',
      section: '4',
      level: 'MUST',
      party: 'server',
      note: "the logout page renders the RP's frontchannel_logout_uri",
    },
    fcLogout_2: {
      spec: 'OIDC Front-Channel Logout',
      section: '2',
      level: 'MUST',
      party: 'server',
      note: 'iss and sid query parameters where the RP requires them (sid as in the ID token)',
    },
  },
  severity: 'medium',
  appliesTo: 'oidc',
  requires: {
    roles: ['confidential'],
    user: true,
    capabilities: [...CODE_FLOW_CAPABILITIES, 'endpoint:endSession', 'metadata:frontchannel_logout_supported'],
  },
  catches: ['front-channel-no-sid'],
  async run(ctx) {
    const client = ctx.client('confidential');
    const frontchannel = client.frontchannelLogoutUri;
    if (!frontchannel)
      return ctx.skip(
        'clients.confidential.frontchannelLogoutUri is not configured (the frontchannel_logout_uri registered for ' +
          'the client, with frontchannel_logout_session_required true)',
      );
    const signedIn = await signIn(ctx, 'confidential');
    // No post_logout_redirect_uri: the OP's own logged-out page is where it frames the RPs' logout URIs. The walk
    // stays on the issuer's origin; the front-channel URI is only observed (a browser's request to it is blocked).
    const outcome = await endSessionWalk(
      ctx,
      signedIn.session,
      { id_token_hint: signedIn.idToken, client_id: client.clientId },
      [frontchannel],
    );
    if (outcome.kind === 'page' && outcome.errorPage)
      throw new PreconditionError(`the logout request ended on an error page (${outcome.headline})`);
    const base = redirectBase(frontchannel);
    const seen: string[] = [];
    // Over HTTP: the frames of the final page, read by the HTML parser (relative sources against the page's URL).
    const page = outcome.kind === 'page' ? readPage(outcome.body, outcome.url, outcome.status) : undefined;
    for (const src of page?.frames ?? []) {
      if (URL.canParse(src, page!.url)) seen.push(new URL(src, page!.url).href);
    }
    // In a browser: every request the pages made or tried (frames included), and a navigation to the URI itself.
    for (const request of outcome.requests ?? []) seen.push(request.url);
    if (outcome.kind === 'redirect') seen.push(outcome.url);
    const loads = seen.filter((url) => redirectBase(url) === base);
    // A page that still asks something (a confirmation the walk did not answer) is no logged-out page yet.
    if (loads.length === 0 && page && page.forms.length > 0)
      throw new PreconditionError(
        `the logout walk ended on a page with a form (${page.headline}), not on a logged-out page: whether the ` +
          'OP would load the front-channel logout URI cannot be told',
      );
    if (loads.length === 0)
      throw new CheckFailure(
        `After the logout, the OP's pages did not load the client's frontchannel_logout_uri ${frontchannel} ` +
          `(${seen.length} frame or request URL(s) seen); OIDC Front-Channel Logout §4 requires the OP to render it ` +
          '(an iframe) when the session ends.',
        { requirement: ctx.req.fcLogout_4 },
      );
    const params = new URL(loads[0]!).searchParams;
    const problems: string[] = [];
    if (params.get('iss') !== ctx.target.issuer)
      problems.push(`iss is ${JSON.stringify(params.get('iss'))}, not the issuer ${ctx.target.issuer}`);
    const sid = params.get('sid');
    if (!sid) problems.push('it has no sid');
    else if (signedIn.claims.sid !== undefined && sid !== signedIn.claims.sid)
      problems.push("sid is not the ID token's");
    if (problems.length > 0)
      throw new CheckFailure(
        `The OP loaded the front-channel logout URI as ${redactSid(loads[0]!)}: ${problems.join('; ')}; OIDC ` +
          'Front-Channel Logout §2 requires the iss and sid query parameters for a client registered with ' +
          'frontchannel_logout_session_required.',
        { requirement: ctx.req.fcLogout_2 },
      );
  },
});

/** The URL with its sid value hidden (a session identifier is not for reports). */
function redactSid(url: string): string {
  const u = new URL(url);
  if (u.searchParams.has('sid')) u.searchParams.set('sid', '…');
  return u.href;
}

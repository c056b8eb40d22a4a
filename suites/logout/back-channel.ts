import { listenForLogoutTokens } from '../../harness/flows/logout-receiver.ts';
import { CheckFailure, PreconditionError, defineScenario } from '../../harness/scenario/scenario.ts';
import { BACKCHANNEL_LOGOUT_EVENT } from '../../protocol/logout.ts';
import { CODE_FLOW_CAPABILITIES, endSessionWalk, signIn } from '../checks/index.ts';
import { errorMessage } from '../../protocol/guards.ts';
import { isRecord } from '../../protocol/guards.ts';

/** How long the scenario waits for the logout token after the logout walk ended. */
const DELIVERY_WAIT_MS = 15_000;

/** A post_logout_redirect_uri stand-in the walk stops at when the client has none (never loaded). */
const NOWHERE = 'https://logged-out.invalid/';

export default defineScenario({
  id: 'logout.back-channel',
  title:
    'Back-channel logout POSTs a signed logout token (iss, aud, iat, exp, jti, the logout event, sid or sub, no ' +
    "nonce) to the client's backchannel_logout_uri when the session ends",
  requirements: {
    bcLogout_2_4: {
      spec: 'OIDC Back-Channel Logout',
      section: '2.4',
      level: 'MUST',
      party: 'server',
      note: 'a signed JWT: iss, aud, iat, exp, jti, the logout event, sub or sid; no nonce',
    },
    bcLogout_2_5: {
      spec: 'OIDC Back-Channel Logout',
      section: '2.5',
      level: 'MUST',
      party: 'server',
      note: 'POSTed form-encoded as logout_token to the backchannel_logout_uri',
    },
  },
  severity: 'medium',
  appliesTo: 'oidc',
  requires: {
    roles: ['confidential'],
    user: true,
    capabilities: [...CODE_FLOW_CAPABILITIES, 'endpoint:endSession', 'metadata:backchannel_logout_supported'],
  },
  catches: ['logout-token-has-nonce'],
  async run(ctx) {
    const client = ctx.client('confidential');
    const uri = client.backchannelLogoutUri;
    if (!uri)
      return ctx.skip(
        'clients.confidential.backchannelLogoutUri is not configured (the backchannel_logout_uri registered for the ' +
          'client, with the port the harness listens on)',
      );
    let receiver;
    try {
      receiver = await listenForLogoutTokens(uri);
    } catch (error) {
      throw new PreconditionError(errorMessage(error));
    }
    try {
      const signedIn = await signIn(ctx, 'confidential');
      const registered = client.postLogoutRedirectUri;
      const outcome = await endSessionWalk(
        ctx,
        signedIn.session,
        {
          id_token_hint: signedIn.idToken,
          client_id: client.clientId,
          ...(registered === undefined ? {} : { post_logout_redirect_uri: registered, state: ctx.random(8) }),
        },
        [registered ?? NOWHERE],
      );
      if (outcome.kind === 'page' && outcome.errorPage)
        throw new PreconditionError(`the logout request ended on an error page (${outcome.headline})`);
      // Other scenarios' logouts may POST here too: this session's token is the one with the ID token's sid (any
      // token when the ID token has none); an unreadable delivery is taken, to be judged.
      const idClaims = signedIn.claims;
      const delivery = await receiver.first(DELIVERY_WAIT_MS, (d) => {
        if (d.token === undefined || idClaims.sid === undefined) return true;
        try {
          const claims = ctx.jwt.decode(d.token).payload;
          return claims.sid === idClaims.sid || (claims.sid === undefined && claims.sub === idClaims.sub);
        } catch {
          return true;
        }
      });
      if (!delivery)
        throw new PreconditionError(
          `no logout token reached ${uri} within ${DELIVERY_WAIT_MS / 1000} s of the logout; check that the IdP can ` +
            'reach that address (the harness listens on 127.0.0.1 at its port) and that the client is registered ' +
            'with it as backchannel_logout_uri',
        );
      if (delivery.token === undefined)
        throw new CheckFailure(
          `The back-channel logout request to ${uri} could not be read: ${delivery.problem}; OIDC Back-Channel ` +
            'Logout §2.5 requires an HTTP POST with the logout_token parameter in an ' +
            'application/x-www-form-urlencoded body.',
          { requirement: ctx.req.bcLogout_2_5, kind: 'refused-wrongly' },
        );
      const token = delivery.token;
      if (token.split('.').length === 5)
        return ctx.skip('the logout token is encrypted (a JWE): the harness holds no key to decrypt it');
      const { payload } = await ctx.jwt.verifySignedBy(token, 'logout token', ctx.req.bcLogout_2_4);
      const problems: string[] = [];
      if (payload.iss !== ctx.target.issuer)
        problems.push(`iss is ${JSON.stringify(payload.iss)}, not the issuer ${ctx.target.issuer}`);
      const aud = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
      if (!aud.includes(client.clientId)) problems.push(`aud ${JSON.stringify(payload.aud)} lacks the client_id`);
      if (typeof payload.iat !== 'number') problems.push('iat is missing or not a number');
      // REQUIRED since the specification's errata set 1 (2023); the 2022 text had no exp.
      if (typeof payload.exp !== 'number')
        problems.push('exp is missing or not a number (REQUIRED since errata set 1)');
      if (typeof payload.jti !== 'string' || payload.jti === '') problems.push('jti is missing');
      const events = payload.events;
      const event = isRecord(events) ? events[BACKCHANNEL_LOGOUT_EVENT] : undefined;
      if (event === null || typeof event !== 'object' || Array.isArray(event))
        problems.push(`events has no JSON object member ${BACKCHANNEL_LOGOUT_EVENT}`);
      if (payload.sub === undefined && payload.sid === undefined) problems.push('it has neither sub nor sid');
      if (payload.sub !== undefined && payload.sub !== idClaims.sub)
        problems.push(`sub ${JSON.stringify(payload.sub)} is not the ID token's sub`);
      if (payload.sid !== undefined && idClaims.sid !== undefined && payload.sid !== idClaims.sid)
        problems.push("sid is not the ID token's sid");
      if ('nonce' in payload) problems.push('it carries a nonce claim');
      if (problems.length > 0)
        throw new CheckFailure(
          `The logout token POSTed to ${uri} is wrong: ${problems.join('; ')}; OIDC Back-Channel Logout §2.4 ` +
            'requires iss, aud, iat, exp, jti, the backchannel-logout event, sub and/or sid, and forbids a nonce ' +
            '(so that it cannot pass for an ID token).',
          { requirement: ctx.req.bcLogout_2_4 },
        );
    } finally {
      await receiver.close();
    }
  },
});

import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import {
  USERINFO_SUB_OIDC_CORE_5_3_2,
  bearerChallenge,
  codeFlowIdToken,
  readJwt,
  userinfoRequest,
} from '../checks/index.ts';
import { isRecord } from '../../protocol/guards.ts';

export default defineScenario({
  id: 'userinfo.bearer',
  title:
    "Userinfo returns the claims with the ID token's sub for a valid Bearer token, and 401 with a Bearer challenge " +
    'for a bad one',
  requirements: {
    oidcCore_5_3: { spec: 'OIDC Core', section: '5.3', level: 'MUST', party: 'server' },
    oidcCore_5_3_2: USERINFO_SUB_OIDC_CORE_5_3_2,
    rfc6750_3: {
      spec: 'RFC 6750',
      section: '3',
      level: 'MUST',
      party: 'server',
      note: 'WWW-Authenticate with the Bearer scheme',
    },
    rfc6750_3_1: {
      spec: 'RFC 6750',
      section: '3.1',
      level: 'SHOULD',
      party: 'server',
      note: '401 with error="invalid_token"',
    },
  },
  severity: 'high',
  appliesTo: 'oidc',
  requires: {
    roles: ['confidential'],
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:authorization', 'endpoint:token', 'endpoint:userinfo'],
  },
  async run(ctx) {
    const { idToken, accessToken } = await codeFlowIdToken(ctx);
    const sub = ctx.jwt.decode(idToken).payload.sub;

    const res = await userinfoRequest(ctx, accessToken, 'userinfo with the access token of the code flow');
    // §5.3.2: a JSON object, or a JWT (application/jwt) when the client registered for signed responses.
    const claims = /application\/jwt/i.test(res.header('content-type') ?? '')
      ? readJwt(res.text.trim())?.payload
      : res.json;
    if (res.status !== 200 || !isRecord(claims)) {
      throw new CheckFailure(
        `Userinfo answered a valid access token with ` +
          `HTTP ${res.status}${res.status === 200 ? ' without a JSON object of claims' : ''}; OIDC Core §5.3 ` +
          `requires HTTP 200 with the user's claims.`,
        { requirement: ctx.req.oidcCore_5_3, kind: 'refused-wrongly' },
      );
    }
    const got = claims.sub;
    if (got !== sub) {
      throw new CheckFailure(
        `Userinfo returned sub ${got === undefined ? '(none)' : JSON.stringify(got)} while the ID token's sub ` +
          `is ${JSON.stringify(sub)}; OIDC Core §5.3.2 requires sub, equal to the ID token's.`,
        { requirement: ctx.req.oidcCore_5_3_2, kind: 'refused-wrongly' },
      );
    }

    const bad = await userinfoRequest(ctx, ctx.random(32), 'userinfo with a token the target never issued');
    const challenge = bearerChallenge(bad);
    const when = `Userinfo answered a token it never issued with HTTP ${bad.status}`;
    if (bad.status >= 200 && bad.status < 300) {
      throw new CheckFailure(`${when}; RFC 6750 §3.1 and OIDC Core §5.3.3 require an invalid_token error.`, {
        requirement: ctx.req.oidcCore_5_3,
      });
    }
    if (!challenge) {
      const header = bad.header('www-authenticate');
      throw new CheckFailure(
        `${when} and ${header === undefined ? 'no WWW-Authenticate header' : `WWW-Authenticate: ${header}`}; RFC ` +
          `6750 §3 requires a WWW-Authenticate challenge with the Bearer scheme.`,
        { requirement: ctx.req.rfc6750_3, kind: 'refused-wrongly' },
      );
    }
    if (bad.status !== 401 || challenge.error !== 'invalid_token') {
      throw new CheckFailure(
        `${when} and ${challenge.error === undefined ? 'no error' : `error="${challenge.error}"`} in its Bearer ` +
          `challenge; RFC 6750 §3.1 asks for HTTP 401 with error="invalid_token".`,
        { requirement: ctx.req.rfc6750_3_1, kind: 'refused-wrongly' },
      );
    }
  },
});

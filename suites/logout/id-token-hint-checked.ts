import { attackerKeyFor, decodeJws, forgeAlgNone, resignJws } from '../../generators/index.ts';
import { CheckFailure, JudgementError, defineScenario, describeOutcome } from '../../harness/scenario/scenario.ts';
import {
  CODE_FLOW_CAPABILITIES,
  NO_HINT_REDIRECT,
  endSessionWalk,
  redirectedTo,
  registeredPostLogoutUri,
  signIn,
} from '../checks/index.ts';

export default defineScenario({
  id: 'logout.id-token-hint-checked',
  title:
    'A logout whose id_token_hint is unsigned (alg none) or signed by another key, or that has no id_token_hint, is ' +
    'not redirected to the post_logout_redirect_uri',
  requirements: {
    rpLogout_2_hint: {
      spec: 'OIDC RP-Initiated Logout',
      section: '2',
      level: 'MUST',
      party: 'server',
      note: 'the OP validates that it issued the ID token of an id_token_hint',
    },
    rpLogout_3_noHint: NO_HINT_REDIRECT,
  },
  severity: 'medium',
  appliesTo: 'oidc',
  requires: { roles: ['confidential'], user: true, capabilities: [...CODE_FLOW_CAPABILITIES, 'endpoint:endSession'] },
  catches: ['logout-hint-unverified', 'logout-redirect-without-hint', 'logout-open-redirect'],
  async run(ctx) {
    const registered = registeredPostLogoutUri(ctx);
    const logout = async (hint: (idToken: string) => string | undefined) => {
      const signedIn = await signIn(ctx, 'confidential');
      const idToken = hint(signedIn.idToken);
      const params = { post_logout_redirect_uri: registered, state: ctx.random(8) };
      return endSessionWalk(ctx, signedIn.session, idToken ? { ...params, id_token_hint: idToken } : params, [
        registered,
      ]);
    };

    // The control: the sound request (the real ID token as hint) is redirected, so a refusal below is for its cause.
    const sound = await logout((idToken) => idToken);
    if (!redirectedTo(sound, registered)) {
      throw new JudgementError(
        `the sound logout request (the client's own ID token as id_token_hint, its registered ` +
          `post_logout_redirect_uri) ${describeOutcome({ ...sound, request: {} })}, so a logout that is not ` +
          `redirected cannot be put down to its id_token_hint`,
      );
    }

    const kinds = [
      {
        what: 'an id_token_hint re-encoded with alg none and no signature',
        hint: (idToken: string) => forgeAlgNone(idToken),
        per: ctx.req.rpLogout_2_hint,
        rule: 'OIDC RP-Initiated Logout §2 requires the OP to validate that it was the issuer of the ID token',
      },
      {
        what: "an id_token_hint with the ID token's claims signed by a key of the harness's own",
        hint: (idToken: string) => {
          const key = attackerKeyFor(String(decodeJws(idToken).header.alg));
          return resignJws(idToken, { kid: key.kid }, key);
        },
        per: ctx.req.rpLogout_2_hint,
        rule: 'OIDC RP-Initiated Logout §2 requires the OP to validate that it was the issuer of the ID token',
      },
      {
        what: 'no id_token_hint (and no client_id)',
        hint: () => undefined,
        per: ctx.req.rpLogout_3_noHint,
        rule:
          'OIDC RP-Initiated Logout §3 says the OP MUST NOT perform post-logout redirection without an ' +
          'id_token_hint unless it has other means of confirming the target',
      },
    ];
    for (const kind of kinds) {
      await ctx.softly(
        async () => {
          const outcome = await logout(kind.hint);
          if (!redirectedTo(outcome, registered)) {
            ctx.evidence.note(`The logout with ${kind.what} ${describeOutcome({ ...outcome, request: {} })}.`);
            return;
          }
          throw new CheckFailure(
            `The logout request with ${kind.what} redirected the user to the registered post_logout_redirect_uri ` +
              `(${outcome.url.split(/[?#]/)[0]}); ${kind.rule}.`,
            { requirement: kind.per },
          );
        },
        { requirement: kind.per },
      );
    }
  },
});

/**
 * The planted flaws wired in the reference core (docs/catalog.md): each one changes the behaviour it
 * names and nothing else. The device, resource-side and exchange flaws are tested with their code.
 */
import { createHash } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { describe } from 'vitest';
import {
  MACHINE,
  newVerifier,
  PARTNER,
  s256,
  SPA,
  WEB,
  type ReferenceClient,
  type TokenResult,
} from '../support/reference-client.ts';
import { parserConfusions } from '../../generators/redirect-uri.ts';
import { flawTests } from './flaw-matrix.ts';

const REGISTERED = WEB.redirectUris[0]!;
const CONFUSIONS = parserConfusions(REGISTERED).map((c) => c.uri);

const outcome = (result: TokenResult) =>
  result.status === 200 ? 'issued' : String(result.body.error ?? result.status);

/** Code flow for WEB and redemption; `redeem` adjusts the token request. */
async function redeemOutcome(
  idp: ReferenceClient,
  redeem: (code: string, verifier: string | undefined) => Promise<TokenResult>,
  query: Record<string, string | undefined> = {},
): Promise<string> {
  const { code, verifier } = await idp.authorizeCode(WEB, query);
  return outcome(await redeem(code, verifier));
}

/** An authorization request to its end: the error it got at /auth, or what redeeming its code got. */
async function authorizeOutcome(
  idp: ReferenceClient,
  client: typeof WEB | typeof SPA,
  query: Record<string, string | undefined>,
  verifier?: string,
): Promise<string> {
  const result = await idp.authorize({ client, query: { response_type: 'code', scope: 'openid', ...query } });
  const code = result.params.get('code');
  if (code === null) return result.params.get('error') ?? `page ${result.page?.status}`;
  return outcome(await idp.redeem(code, client, { code_verifier: verifier }));
}

/** Where an authorization request with this redirect_uri went: redirected there, or an error page. */
async function redirectOutcome(idp: ReferenceClient, redirectUri: string): Promise<string> {
  const result = await idp.authorize({
    client: WEB,
    query: {
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'openid',
      code_challenge: s256(newVerifier()),
      code_challenge_method: 'S256',
    },
  });
  if (result.callback)
    return result.callback.href.startsWith(redirectUri) ? 'redirected' : `elsewhere ${result.callback.href}`;
  return `page ${result.page?.status}`;
}

async function webTokens(idp: ReferenceClient, scope = 'openid offline_access', nonce?: string) {
  return idp.tokensFor(WEB, { scope, ...(nonce === undefined ? {} : { nonce }) });
}

/** The same token request from N connections at once: how many got tokens. */
async function raceOutcome(idp: ReferenceClient, params: Record<string, string | undefined>): Promise<string> {
  const statuses = await idp.tokenRace(8, params, { client: WEB });
  const issued = statuses.filter((status) => status === 200).length;
  return issued === 1 ? 'one' : issued === 0 ? 'none' : 'several';
}

const ccToken = (
  idp: ReferenceClient,
  extra: Record<string, string> = {},
  opts: { secret?: string; json?: boolean } = {},
) => idp.token({ grant_type: 'client_credentials', ...extra }, { client: MACHINE, ...opts });

describe('planted flaws of the core', () => {
  flawTests([
    {
      flaw: 'discovery-issuer-mismatch',
      probe: async (idp) => (await idp.json('/.well-known/openid-configuration')).issuer === idp.issuer,
      clean: true,
      flawed: false,
    },
    {
      flaw: 'jwks-leaks-private',
      probe: async (idp) => ((await idp.json('/jwks')).keys as Record<string, unknown>[]).some((key) => 'd' in key),
      clean: false,
      flawed: true,
    },
    {
      flaw: 'state-dropped',
      probe: async (idp) => (await idp.authorizeCode(WEB, { state: 'st-9' })).result.params.get('state'),
      clean: 'st-9',
      flawed: null,
    },
    {
      flaw: 'code-reuse-allowed',
      probe: (idp) =>
        redeemOutcome(idp, async (code, verifier) => {
          await idp.redeem(code, WEB, { code_verifier: verifier });
          return idp.redeem(code, WEB, { code_verifier: verifier });
        }),
      clean: 'invalid_grant',
      flawed: 'issued',
    },
    {
      flaw: 'code-never-expires',
      // Redeemed after its 60 s lifetime (RFC 6749 §4.1.2): the server's clock moved on 61 s, and back after (the
      // clean path's ID tokens are judged against real time).
      probe: (idp) =>
        redeemOutcome(idp, async (code, verifier) => {
          idp.server.clock.advance(61_000);
          try {
            return await idp.redeem(code, WEB, { code_verifier: verifier });
          } finally {
            idp.server.clock.advance(-61_000);
          }
        }),
      clean: 'invalid_grant',
      flawed: 'issued',
    },
    {
      flaw: 'code-reuse-keeps-tokens',
      // After a replay of the code, the refresh token of the first redemption.
      probe: (idp) =>
        redeemOutcome(idp, async (code, verifier) => {
          const first = await idp.redeem(code, WEB, { code_verifier: verifier });
          await idp.redeem(code, WEB, { code_verifier: verifier });
          return idp.refresh(String(first.body.refresh_token), WEB);
        }),
      clean: 'invalid_grant',
      flawed: 'issued',
    },
    {
      flaw: 'code-not-bound-to-client',
      probe: (idp) =>
        redeemOutcome(idp, (code, verifier) =>
          idp.token(
            { grant_type: 'authorization_code', code, redirect_uri: WEB.redirectUris[0], code_verifier: verifier },
            { client: PARTNER },
          ),
        ),
      clean: 'invalid_grant',
      flawed: 'issued',
    },
    {
      flaw: 'code-redirect-unchecked',
      probe: (idp) =>
        redeemOutcome(idp, (code, verifier) =>
          idp.redeem(code, WEB, { code_verifier: verifier, redirect_uri: 'https://web.example.test/other' }),
        ),
      clean: 'invalid_grant',
      flawed: 'issued',
    },
    {
      flaw: 'code-redirect-loose',
      // The query and the port are left out of the comparison; another path is still refused.
      probe: async (idp) => [
        await redeemOutcome(idp, (code, verifier) =>
          idp.redeem(code, WEB, { code_verifier: verifier, redirect_uri: `${WEB.redirectUris[0]}?x=1` }),
        ),
        await redeemOutcome(idp, (code, verifier) =>
          idp.redeem(code, WEB, { code_verifier: verifier, redirect_uri: `${WEB.redirectUris[0]}/x` }),
        ),
      ],
      clean: ['invalid_grant', 'invalid_grant'],
      flawed: ['issued', 'invalid_grant'],
    },
    {
      flaw: 'pkce-verifier-ignored',
      probe: (idp) => redeemOutcome(idp, (code) => idp.redeem(code, WEB, { code_verifier: newVerifier() })),
      clean: 'invalid_grant',
      flawed: 'issued',
    },
    {
      flaw: 'pkce-verifier-optional',
      probe: (idp) => redeemOutcome(idp, (code) => idp.redeem(code, WEB)),
      clean: 'invalid_grant',
      flawed: 'issued',
    },
    {
      flaw: 'pkce-downgrade',
      // No challenge at /auth (allowed for this first-party confidential client), a verifier at /token.
      probe: (idp) =>
        redeemOutcome(idp, (code) => idp.redeem(code, WEB, { code_verifier: newVerifier() }), {
          code_challenge: undefined,
          code_challenge_method: undefined,
        }),
      clean: 'invalid_grant',
      flawed: 'issued',
    },
    {
      flaw: 'pkce-plain-allowed',
      probe: async (idp) => {
        const verifier = newVerifier();
        const discovery = await idp.json('/.well-known/openid-configuration');
        return [
          discovery.code_challenge_methods_supported,
          await authorizeOutcome(idp, WEB, { code_challenge: verifier, code_challenge_method: 'plain' }, verifier),
        ];
      },
      clean: [['S256'], 'invalid_request'],
      flawed: [['S256', 'plain'], 'issued'],
    },
    {
      flaw: 'pkce-default-method-ignored',
      // A challenge without a method (plain, RFC 7636 §4.3), redeemed with a verifier that matches nothing.
      probe: (idp) =>
        authorizeOutcome(idp, WEB, { code_challenge: newVerifier(), code_challenge_method: undefined }, newVerifier()),
      clean: 'invalid_request',
      flawed: 'issued',
    },
    {
      flaw: 'token-type-missing',
      probe: async (idp) => [
        (await ccToken(idp)).body.token_type ?? 'none',
        (await webTokens(idp)).token_type ?? 'none',
      ],
      clean: ['Bearer', 'Bearer'],
      flawed: ['none', 'none'],
    },
    {
      flaw: 'pkce-optional-for-public',
      probe: (idp) => authorizeOutcome(idp, SPA, {}),
      clean: 'invalid_request',
      flawed: 'issued',
    },
    {
      flaw: 'pkce-verifier-format-unchecked',
      probe: (idp) =>
        authorizeOutcome(idp, WEB, { code_challenge: s256('too-short'), code_challenge_method: 'S256' }, 'too-short'),
      clean: 'invalid_grant',
      flawed: 'issued',
    },
    {
      flaw: 'redirect-prefix-match',
      // The parser-confusion cases redirect.exact-match tries every run: exact matching refuses each; a prefix
      // match takes the ones that start with the registered URI.
      probe: async (idp) => {
        const outcomes: Record<string, string> = {};
        for (const uri of [`${REGISTERED}/attacker`, ...CONFUSIONS]) {
          // A browser resolves the dot segments and backslashes of some: redirected there all the same.
          outcomes[uri] = (await redirectOutcome(idp, uri)).replace(/^elsewhere .*/, 'redirected');
        }
        return outcomes;
      },
      clean: Object.fromEntries([`${REGISTERED}/attacker`, ...CONFUSIONS].map((uri) => [uri, 'page 400'])),
      flawed: Object.fromEntries(
        [`${REGISTERED}/attacker`, ...CONFUSIONS].map((uri) => [
          uri,
          uri.startsWith(REGISTERED) ? 'redirected' : 'page 400',
        ]),
      ),
    },
    {
      flaw: 'host-header-trusted',
      probe: async (idp) => {
        const doc = (await (
          await idp.get('/.well-known/openid-configuration', { 'x-forwarded-host': 'attacker.example' })
        ).json()) as Record<string, unknown>;
        return new URL(String(doc.issuer)).hostname;
      },
      clean: '127.0.0.1',
      flawed: 'attacker.example',
    },
    {
      flaw: 'redirect-open-on-error',
      probe: (idp) => redirectOutcome(idp, 'https://attacker.example/cb'),
      clean: 'page 400',
      flawed: 'redirected',
    },
    {
      flaw: 'refresh-not-rotated',
      probe: async (idp) => {
        const tokens = await webTokens(idp);
        const refreshed = await idp.refresh(String(tokens.refresh_token), WEB);
        return refreshed.body.refresh_token === tokens.refresh_token ? 'same' : 'rotated';
      },
      clean: 'rotated',
      flawed: 'same',
    },
    {
      flaw: 'refresh-reuse-allowed',
      probe: async (idp) => {
        const { refresh_token: first } = await webTokens(idp);
        await idp.refresh(String(first), WEB);
        return outcome(await idp.refresh(String(first), WEB));
      },
      clean: 'invalid_grant',
      flawed: 'issued',
    },
    {
      flaw: 'refresh-family-kept',
      // Replaying the rotated-out token is refused either way; the flaw keeps its successor alive.
      probe: async (idp) => {
        const { refresh_token: first } = await webTokens(idp);
        const second = (await idp.refresh(String(first), WEB)).body.refresh_token;
        const replay = outcome(await idp.refresh(String(first), WEB));
        return [replay, outcome(await idp.refresh(String(second), WEB))];
      },
      clean: ['invalid_grant', 'invalid_grant'],
      flawed: ['invalid_grant', 'issued'],
    },
    {
      flaw: 'refresh-replay-mints-valid',
      // A public client's replay revokes the family (its successor is refused), but gets tokens whose refresh token
      // stays valid.
      probe: async (idp) => {
        const { refresh_token: first } = await idp.tokensFor(SPA, { scope: 'openid offline_access' });
        const second = (await idp.refresh(String(first), SPA)).body.refresh_token;
        const replay = await idp.refresh(String(first), SPA);
        const minted = replay.body.refresh_token;
        const late = typeof minted === 'string' ? outcome(await idp.refresh(minted, SPA)) : 'none minted';
        return [outcome(replay), outcome(await idp.refresh(String(second), SPA)), late];
      },
      clean: ['invalid_grant', 'invalid_grant', 'none minted'],
      flawed: ['issued', 'invalid_grant', 'issued'],
    },
    {
      flaw: 'refresh-unknown-accepted',
      probe: async (idp) => outcome(await idp.refresh(newVerifier(), WEB)),
      clean: 'invalid_grant',
      flawed: 'issued',
    },
    {
      flaw: 'refresh-not-client-bound',
      probe: async (idp) => outcome(await idp.refresh(String((await webTokens(idp)).refresh_token), PARTNER)),
      clean: 'invalid_grant',
      flawed: 'issued',
    },
    {
      flaw: 'refresh-scope-widen',
      // profile is within the client's registered scope but beyond this grant's.
      probe: async (idp) => {
        const { refresh_token: token } = await webTokens(idp, 'openid offline_access');
        return outcome(await idp.refresh(String(token), WEB, { scope: 'openid offline_access profile' }));
      },
      clean: 'invalid_scope',
      flawed: 'issued',
    },
    {
      flaw: 'cc-issues-refresh',
      probe: async (idp) => 'refresh_token' in (await ccToken(idp)).body,
      clean: false,
      flawed: true,
    },
    {
      flaw: 'client-secret-unchecked',
      probe: async (idp) => {
        const result = await ccToken(idp, {}, { secret: 'not-the-secret' });
        return [outcome(result), result.status];
      },
      clean: ['invalid_client', 401],
      flawed: ['issued', 200],
    },
    {
      flaw: 'scope-unchecked',
      // api:write is in neither client's registered scope: refused at /auth and at the token endpoint.
      probe: async (idp) => [
        await authorizeOutcome(idp, WEB, { scope: 'openid api:write' }),
        outcome(await ccToken(idp, { scope: 'api:read api:write' })),
      ],
      clean: ['invalid_scope', 'invalid_scope'],
      flawed: ['issued', 'issued'],
    },
    {
      flaw: 'id-token-wrong-aud',
      probe: async (idp) => decodeJwt(String((await webTokens(idp, 'openid')).id_token)).aud,
      clean: WEB.clientId,
      flawed: `${WEB.clientId}-other`,
    },
    {
      flaw: 'id-token-unknown-kid',
      probe: async (idp) => {
        const { kid } = decodeProtectedHeader(String((await webTokens(idp, 'openid')).id_token));
        return ((await idp.json('/jwks')).keys as { kid: string }[]).some((key) => key.kid === kid);
      },
      clean: true,
      flawed: false,
    },
    {
      flaw: 'at-hash-wrong',
      probe: async (idp) => {
        const tokens = await webTokens(idp, 'openid');
        const expected = createHash('sha256')
          .update(String(tokens.access_token))
          .digest()
          .subarray(0, 16)
          .toString('base64url');
        return decodeJwt(String(tokens.id_token)).at_hash === expected;
      },
      clean: true,
      flawed: false,
    },
    {
      flaw: 'claims-overshare',
      // The ID token side; userinfo is tested with its endpoint.
      probe: async (idp) => {
        const claims = decodeJwt(String((await webTokens(idp, 'openid')).id_token));
        return ['name', 'email', 'address', 'phone_number'].filter((claim) => claim in claims);
      },
      clean: [],
      flawed: ['name', 'email', 'address', 'phone_number'],
    },
    {
      flaw: 'no-store-missing',
      probe: async (idp) => [
        (await ccToken(idp)).headers.get('cache-control'),
        (await ccToken(idp, {}, { secret: 'not-the-secret' })).headers.get('cache-control'),
      ],
      clean: ['no-store', 'no-store'],
      flawed: [null, null],
    },
    {
      flaw: 'error-format-wrong',
      probe: async (idp) => {
        const result = await idp.token(
          { grant_type: 'client_credentials', scope: 'not\u0001valid' },
          { client: MACHINE },
        );
        return [
          result.status,
          result.headers.get('content-type')?.split(';')[0],
          result.body.error ?? 'no error member',
        ];
      },
      clean: [400, 'application/json', 'invalid_request'],
      flawed: [400, 'text/plain', 'no error member'],
    },
    {
      flaw: 'json-body-rejected',
      probe: async (idp) => outcome(await ccToken(idp, {}, { json: true })),
      clean: 'issued',
      flawed: 'invalid_request',
    },
    {
      flaw: 'third-party-long-lived',
      probe: async (idp) => (await idp.tokensFor(SPA, { scope: 'openid' })).expires_in,
      clean: 600,
      flawed: 3600,
    },
    {
      flaw: 'consent-skipped',
      probe: async (idp) => (await idp.authorizeCode(SPA, { scope: 'openid' })).result.consentShown,
      clean: true,
      flawed: false,
    },
    {
      flaw: 'no-frame-protection',
      probe: async (idp) => {
        const login = await idp.get(
          `/auth?${new URLSearchParams({
            client_id: WEB.clientId,
            redirect_uri: WEB.redirectUris[0]!,
            response_type: 'code',
            scope: 'openid',
          })}`,
        );
        return [
          login.status,
          login.headers.get('x-frame-options'),
          /frame-ancestors/.test(login.headers.get('content-security-policy') ?? ''),
        ];
      },
      clean: [200, 'DENY', true],
      flawed: [200, null, false],
    },
    {
      flaw: 'race-code',
      probe: async (idp) => {
        const { code, verifier } = await idp.authorizeCode(WEB);
        return raceOutcome(idp, {
          grant_type: 'authorization_code',
          code,
          redirect_uri: WEB.redirectUris[0],
          code_verifier: verifier,
        });
      },
      clean: 'one',
      flawed: 'several',
    },
    {
      flaw: 'race-code-intermittent',
      // Three races: only the second lets several redemptions through.
      probe: async (idp) => {
        const rounds: string[] = [];
        for (let i = 0; i < 3; i++) {
          const { code, verifier } = await idp.authorizeCode(WEB);
          const params = {
            grant_type: 'authorization_code',
            code,
            redirect_uri: WEB.redirectUris[0],
            code_verifier: verifier,
          };
          rounds.push(await raceOutcome(idp, params));
        }
        return rounds;
      },
      clean: ['one', 'one', 'one'],
      flawed: ['one', 'several', 'one'],
    },
    {
      flaw: 'race-refresh-intermittent',
      // Three races, a refresh token each: only the second lets several refreshes through.
      probe: async (idp) => {
        const rounds: string[] = [];
        for (let i = 0; i < 3; i++) {
          const { refresh_token: token } = await webTokens(idp);
          rounds.push(await raceOutcome(idp, { grant_type: 'refresh_token', refresh_token: String(token) }));
        }
        return rounds;
      },
      clean: ['one', 'one', 'one'],
      flawed: ['one', 'several', 'one'],
    },
    {
      flaw: 'race-refresh',
      probe: async (idp) => {
        const { refresh_token: token } = await webTokens(idp);
        return raceOutcome(idp, { grant_type: 'refresh_token', refresh_token: String(token) });
      },
      clean: 'one',
      flawed: 'several',
    },
  ]);
});

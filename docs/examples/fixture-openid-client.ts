import assert from 'node:assert/strict';
import * as client from 'openid-client';
import { createReferenceServer } from 'idp-conformance/reference';

const redirectUri = 'http://127.0.0.1:3000/callback';
const server = createReferenceServer({
  // Your client as the IdP knows it: a confidential client (it has a secret) of your own party.
  clients: [
    {
      clientId: 'my-app',
      clientSecret: 'my-app-test-secret',
      redirectUris: [redirectUri],
      allowedScope: 'openid email roles offline_access',
      grantTypes: ['authorization_code', 'refresh_token'],
      firstParty: true,
      name: 'My App',
    },
  ],
  // A user with a claim of your own, released by a scope of your own.
  users: [
    {
      username: 'bob',
      password: 'bob-test-password',
      sub: 'user-bob',
      claims: { email: 'bob@example.test', email_verified: true, roles: ['admin', 'billing'] },
    },
  ],
  scopeClaims: { roles: ['roles'] },
  // Access tokens live five minutes.
  lifetimes: { accessTokenFirstParty: 300 },
  // The roles in the access token too (RFC 9068 §2.2.3.1); iss, sub, aud, exp… cannot be changed here.
  shapeClaims: (kind, claims, { user }) =>
    kind === 'access_token' && user ? { ...claims, roles: user.claims.roles } : claims,
});
const { issuer } = await server.listen(0, '127.0.0.1');

// openid-client with its defaults; plain http is allowed for the loopback issuer only.
const configure = (clockSkewSeconds = 0) =>
  client.discovery(
    new URL(issuer),
    'my-app',
    { client_secret: 'my-app-test-secret', [client.clockSkew]: clockSkewSeconds },
    undefined,
    { execute: [client.allowInsecureRequests] },
  );

try {
  const config = await configure();

  // Bob signs in without the login page: the code is bound to this PKCE challenge, nonce and state.
  const pkceCodeVerifier = client.randomPKCECodeVerifier();
  const nonce = client.randomNonce();
  const state = client.randomState();
  const { callbackUrl } = await server.testLogin({
    clientId: 'my-app',
    redirectUri,
    scope: 'openid email roles offline_access',
    user: 'bob',
    codeChallenge: await client.calculatePKCECodeChallenge(pkceCodeVerifier),
    codeChallengeMethod: 'S256',
    nonce,
    state,
  });
  const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
    pkceCodeVerifier,
    expectedNonce: nonce,
    expectedState: state,
  });
  assert.deepEqual(tokens.claims()?.roles, ['admin', 'billing']);
  const userinfo = await client.fetchUserInfo(config, tokens.access_token, 'user-bob');
  assert.equal(userinfo.email, 'bob@example.test');

  // Ten minutes later (server time) the access token has expired...
  server.clock.advance(10 * 60 * 1000);
  await assert.rejects(client.fetchUserInfo(config, tokens.access_token, 'user-bob'));

  // ...and the client refreshes. The server's clock is now ahead of this process's: tell the
  // client (its checks of iat, nbf and exp use its own clock).
  const later = await configure(server.clock.offset / 1000);
  const refreshed = await client.refreshTokenGrant(later, tokens.refresh_token!);
  assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
  assert.equal((await client.fetchUserInfo(later, refreshed.access_token, 'user-bob')).email, 'bob@example.test');
} finally {
  await server.close();
}

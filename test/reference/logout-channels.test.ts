/**
 * Back- and front-channel logout at the reference (OIDC Back-Channel Logout 1.0, Front-Channel Logout 1.0): the
 * discovery fields, the sid shared by the ID token, the logout token and the front-channel frame, a delivery that
 * never holds up the logout response, and the logout metadata of dynamic registration.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { readPage } from '../../harness/login/html.ts';
import { listenForLogoutTokens } from '../../harness/flows/logout-receiver.ts';
import { unusedLoopbackPort } from '../../harness/http/ports.ts';
import { BACKCHANNEL_LOGOUT_EVENT } from '../../protocol/logout.ts';
import type { ReferenceOptions } from '../../reference/index.ts';
import { newVerifier, s256, startReference, WEB, type ReferenceClient } from '../support/reference-client.ts';
import { Browser, walk } from '../support/session-browser.ts';

const servers: { close(): Promise<void> }[] = [];
afterAll(() => Promise.all(servers.map((s) => s.close())));

async function reference(options: ReferenceOptions = {}): Promise<ReferenceClient> {
  const idp = await startReference(options);
  servers.push(idp);
  return idp;
}

/** A browser signed in through WEB, and the ID token's claims. */
async function signedIn(idp: ReferenceClient) {
  const browser = new Browser();
  const verifier = newVerifier();
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: WEB.clientId,
    redirect_uri: WEB.redirectUris[0]!,
    scope: 'openid',
    state: 's',
    code_challenge: s256(verifier),
    code_challenge_method: 'S256',
  });
  const { location } = await walk(browser, idp.issuer, `${idp.issuer}/auth?${query}`);
  const redeemed = await idp.redeem(location!.searchParams.get('code')!, WEB, { code_verifier: verifier });
  const idToken = String(redeemed.body.id_token);
  return { browser, idToken, claims: decodeJwt(idToken) };
}

const logout = (idp: ReferenceClient, browser: Browser, idToken: string) =>
  browser.send(`${idp.issuer}/session/end?${new URLSearchParams({ id_token_hint: idToken })}`);

describe('back- and front-channel logout', () => {
  it('discovery advertises both, with sid', async () => {
    const idp = await reference();
    const doc = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    expect(doc).toMatchObject({
      backchannel_logout_supported: true,
      backchannel_logout_session_supported: true,
      frontchannel_logout_supported: true,
      frontchannel_logout_session_supported: true,
    });
  });

  it("POSTs a logout token with the ID token's sid to the back-channel URI, frames the front-channel one", async () => {
    const uri = `http://127.0.0.1:${await unusedLoopbackPort()}/bc`;
    const receiver = await listenForLogoutTokens(uri);
    servers.push(receiver);
    const idp = await reference({ backchannelLogoutUri: uri });
    const { browser, idToken, claims } = await signedIn(idp);
    expect(typeof claims.sid).toBe('string');
    const res = await logout(idp, browser, idToken);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain('frame-src https://web.example.test');
    const frames = readPage(await res.text(), res.url, res.status).frames ?? [];
    expect(frames.map((src) => Object.fromEntries(new URL(src).searchParams))).toEqual([
      { iss: idp.issuer, sid: claims.sid },
    ]);
    const delivery = await receiver.first(10_000);
    expect(delivery?.contentType).toBe('application/x-www-form-urlencoded');
    const token = delivery!.token!;
    expect(decodeProtectedHeader(token).typ).toBe('logout+jwt');
    const payload = decodeJwt(token);
    expect(payload).toMatchObject({ iss: idp.issuer, aud: WEB.clientId, sub: claims.sub, sid: claims.sid });
    expect(payload.events).toEqual({ [BACKCHANNEL_LOGOUT_EVENT]: {} });
    expect(payload).not.toHaveProperty('nonce');
  }, 30_000);

  it('answers the logout while the back-channel POST is still unanswered (the delivery is never awaited)', async () => {
    const pending: IncomingMessage[] = [];
    let arrived!: () => void;
    const reached = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const hanging: Server = createServer((req) => {
      pending.push(req);
      arrived();
    });
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    servers.push({
      close: () =>
        new Promise<void>((resolve) => {
          hanging.closeAllConnections();
          hanging.close(() => resolve());
        }),
    });
    const port = (hanging.address() as AddressInfo).port;
    const idp = await reference({ backchannelLogoutUri: `http://127.0.0.1:${port}/bc` });
    const { browser, idToken } = await signedIn(idp);
    const res = await logout(idp, browser, idToken);
    expect(res.status).toBe(200);
    await reached;
    // The client has not answered (and the reference's 5 s limit has not cut the request): the logout did not wait.
    expect(pending).toHaveLength(1);
    expect(pending[0]!.socket.destroyed).toBe(false);
  }, 30_000);

  it('registration takes the logout metadata, and refuses malformed values with invalid_client_metadata', async () => {
    const idp = await reference({ registration: true });
    const register = async (extra: Record<string, unknown>) => {
      const res = await fetch(`${idp.issuer}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: ['https://rp.example.test/cb'], scope: 'openid', ...extra }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const good = await register({
      backchannel_logout_uri: 'https://rp.example.test/bc',
      backchannel_logout_session_required: true,
      frontchannel_logout_uri: 'https://rp.example.test/fc',
      frontchannel_logout_session_required: true,
    });
    expect(good.status).toBe(201);
    expect(good.body).toMatchObject({
      backchannel_logout_uri: 'https://rp.example.test/bc',
      frontchannel_logout_session_required: true,
    });
    for (const bad of [
      { backchannel_logout_uri: 'javascript:alert(1)' },
      { backchannel_logout_uri: 'https://rp.example.test/bc#x' },
      { frontchannel_logout_uri: 42 },
      { backchannel_logout_session_required: 'yes' },
    ]) {
      const refused = await register(bad);
      expect([refused.status, refused.body.error], JSON.stringify(bad)).toEqual([400, 'invalid_client_metadata']);
    }
  }, 30_000);
});

/**
 * End to end with a certified relying-party library: openid-client 6 is the device (discovery,
 * device authorization, its own polling and ID token validation) while a person drives the
 * activation pages over HTTP. The interval is 1 s, so the library's polling stays quick.
 */
import * as client from 'openid-client';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { activate, ALICE, TV, UserAgent, useServer } from './device-helpers.ts';

describe('openid-client 6 as the device, a person at the activation page', () => {
  const ctx = useServer({ deviceInterval: 1 });

  /** The library's configuration for the seeded TV client; `answers` collects what each poll got. */
  async function device(answers: string[]): Promise<client.Configuration> {
    const config = await client.discovery(new URL(ctx.issuer), TV.clientId, undefined, client.None(), {
      execute: [client.allowInsecureRequests],
    });
    config[client.customFetch] = async (url, options) => {
      const response = await fetch(url, options);
      if (new URL(url).pathname === '/token') {
        const body = (await response.clone().json()) as { error?: string };
        answers.push(body.error ?? 'tokens');
      }
      return response;
    };
    return config;
  }

  async function until(condition: () => boolean): Promise<void> {
    for (let waited = 0; !condition(); waited += 20) {
      if (waited > 10_000) throw new Error('timed out waiting for the device to poll');
      await delay(20);
    }
  }

  it('polls through authorization_pending to validated tokens; the code is then spent', async () => {
    const answers: string[] = [];
    const config = await device(answers);
    const authorization = await client.initiateDeviceAuthorization(config, { scope: 'openid profile offline_access' });
    expect(authorization.interval).toBe(1);
    expect(authorization.verification_uri).toBe(`${ctx.issuer}/activate`);
    const polling = client.pollDeviceAuthorizationGrant(config, authorization);
    await until(() => answers.length > 0);

    const { last } = await activate(authorization.verification_uri, authorization.user_code, { decision: 'approve' });
    expect(last.html).toContain('Device connected');
    const tokens = await polling;
    expect(answers[0]).toBe('authorization_pending');
    expect(answers.at(-1)).toBe('tokens');
    expect(answers).not.toContain('slow_down');
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.scope).toBe('openid profile offline_access');
    expect(tokens.claims()).toMatchObject({
      iss: ctx.issuer,
      aud: TV.clientId,
      sub: ALICE.sub,
      name: ALICE.claims.name,
    });
    expect(tokens.refresh_token).toEqual(expect.any(String));

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);

    await expect(client.pollDeviceAuthorizationGrant(config, authorization)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('a person who follows verification_uri_complete and denies: the polling rejects with access_denied', async () => {
    const config = await device([]);
    const authorization = await client.initiateDeviceAuthorization(config, { scope: 'openid' });
    const polling = client.pollDeviceAuthorizationGrant(config, authorization);
    const outcome = expect(polling).rejects.toMatchObject({ error: 'access_denied' });

    const agent = new UserAgent();
    const form = await agent.get(authorization.verification_uri_complete!);
    const prefilled = /name="user_code"[^>]*value="([^"]*)"/.exec(form.html)?.[1];
    expect(prefilled).toBe(authorization.user_code);
    const { last } = await activate(authorization.verification_uri, prefilled!, { decision: 'deny', agent });
    expect(last.html).toContain('Request denied');
    await outcome;
  });
});

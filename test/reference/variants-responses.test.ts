/**
 * The response variants (reference/variants.ts): lowercase-bearer, errors-without-description and slow change only
 * what they name; the variant registry refuses unknown names.
 */
import { describe, expect, it, vi } from 'vitest';
import { slowResponses } from '../../reference/http/slow.ts';
import { VARIANT_NAMES, VARIANTS, Variants } from '../../reference/index.ts';
import { MACHINE, WEB, authUrl, basic, useServer } from './helpers.ts';

const machineAuth = basic(MACHINE.clientId, MACHINE.clientSecret);

async function clientCredentials(
  issuer: string,
  body: string,
): Promise<{ status: number; json: Record<string, string> }> {
  const res = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { authorization: machineAuth, 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  return { status: res.status, json: (await res.json()) as Record<string, string> };
}

describe('the variant registry', () => {
  it('names what each variant does and its source, and refuses an unknown name with the list', () => {
    for (const name of VARIANT_NAMES) {
      expect(VARIANTS[name].does.length, name).toBeGreaterThan(10);
      expect(VARIANTS[name].source.length, name).toBeGreaterThan(10);
    }
    expect(() => new Variants(['no-such-variant'])).toThrow(/unknown variant "no-such-variant"; known variants: /);
    expect(new Variants(['slow', 'slow']).active).toEqual(['slow']);
  });
});

describe('lowercase-bearer', () => {
  const ctx = useServer({ variants: ['lowercase-bearer'] });
  it('answers token_type "bearer", and the token works at the resource endpoints', async () => {
    const { status, json } = await clientCredentials(ctx.issuer, 'grant_type=client_credentials');
    expect(status).toBe(200);
    expect(json.token_type).toBe('bearer');
    const introspected = await fetch(`${ctx.issuer}/introspect`, {
      method: 'POST',
      headers: { authorization: machineAuth, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: json.access_token! }),
    });
    expect(((await introspected.json()) as { active: boolean }).active).toBe(true);
  });
});

describe('errors-without-description', () => {
  const ctx = useServer({ variants: ['errors-without-description'] });
  it('leaves error_description out of token errors, error redirects and Bearer challenges', async () => {
    const { status, json } = await clientCredentials(ctx.issuer, 'grant_type=nonsense');
    expect(status).toBe(400);
    expect(json).toEqual({ error: 'unsupported_grant_type' });

    const redirect = await fetch(
      authUrl(ctx.issuer, {
        client_id: WEB.clientId,
        redirect_uri: WEB.redirectUri,
        response_type: 'bogus',
        state: 's',
      }),
      { redirect: 'manual' },
    );
    expect([302, 303]).toContain(redirect.status);
    const location = new URL(redirect.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('unsupported_response_type');
    expect(location.searchParams.get('state')).toBe('s');
    expect(location.searchParams.has('error_description')).toBe(false);

    const userinfo = await fetch(`${ctx.issuer}/userinfo`, { headers: { authorization: 'Bearer not-a-token' } });
    expect(userinfo.status).toBe(401);
    const challenge = userinfo.headers.get('www-authenticate')!;
    expect(challenge).toMatch(/^Bearer .*error="invalid_token"/);
    expect(challenge).not.toMatch(/error_description/);
  });
});

describe('slow', () => {
  it('holds every response back by the delay before it leaves', async () => {
    vi.useFakeTimers();
    try {
      let sent = false;
      const middleware = slowResponses(250);
      const done = middleware({} as never, async () => {}).then(() => {
        sent = true;
      });
      await vi.advanceTimersByTimeAsync(249);
      expect(sent).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await done;
      expect(sent).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  const ctx = useServer({ variants: ['slow'], slowMs: 20 });
  it('answers as the plain reference does', async () => {
    const { status, json } = await clientCredentials(ctx.issuer, 'grant_type=client_credentials');
    expect(status).toBe(200);
    expect(json.token_type).toBe('Bearer');
  });
});

/** The embedded reference and its target config: the legacy role when seeded, a short device interval. */
import { describe, expect, it } from 'vitest';
import { EMBEDDED_DEVICE_INTERVAL, type EmbeddedReference, startEmbeddedReference } from '../../cli/embedded.ts';
import { resolveClients, validateConfig } from '../../harness/config/load.ts';
import { LEGACY_CLIENT } from '../../reference/index.ts';

/** The interval of a fresh device authorization for the device client. */
async function intervalOf(ref: EmbeddedReference): Promise<unknown> {
  const res = await fetch(`${ref.issuer}/device/auth`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: ref.target.clients.device!.clientId }),
  });
  return ((await res.json()) as { interval?: unknown }).interval;
}

describe('the embedded reference', () => {
  it('lists the legacy client as role "legacy" when it is seeded, and the harness accepts the config', async () => {
    const ref = await startEmbeddedReference({ legacyClient: true });
    try {
      expect(ref.target.clients.legacy).toEqual({
        clientId: LEGACY_CLIENT.clientId,
        clientSecret: LEGACY_CLIENT.clientSecret,
        redirectUri: LEGACY_CLIENT.redirectUris[0],
        scope: LEGACY_CLIENT.allowedScope,
        authMethod: 'client_secret_basic',
        firstParty: true,
      });
      expect(resolveClients(validateConfig(ref.target, {})).legacy).toMatchObject({
        role: 'legacy',
        clientId: LEGACY_CLIENT.clientId,
      });
    } finally {
      await ref.server.close();
    }
  });

  it('has no legacy client by default, and a device polling interval of one second', async () => {
    const ref = await startEmbeddedReference();
    try {
      expect(ref.target.clients).not.toHaveProperty('legacy');
      expect(await intervalOf(ref)).toBe(EMBEDDED_DEVICE_INTERVAL);
      expect(EMBEDDED_DEVICE_INTERVAL).toBe(1);
    } finally {
      await ref.server.close();
    }
  });

  it('keeps an interval given explicitly', async () => {
    const ref = await startEmbeddedReference({ deviceInterval: 5 });
    try {
      expect(await intervalOf(ref)).toBe(5);
    } finally {
      await ref.server.close();
    }
  });
});

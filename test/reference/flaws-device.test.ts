/**
 * The device-flow flaws (docs/catalog.md): each one changes the behaviour it names, and only that one.
 * Four behaviours are observed on every server: a poll before the user acts, a second poll
 * faster than the interval, a poll after a denial, and a poll after the tokens were issued.
 */
import { describe, expect, it } from 'vitest';
import type { FlawName } from '../../reference/index.ts';
import { activate, FakeClock, poll, startDevice, useServer, type JsonResponse } from './device-helpers.ts';

type Behaviour = 'pending' | 'fast poll' | 'denied' | 'poll after success';

const outcome = (res: JsonResponse) =>
  res.status === 200 && typeof res.json.access_token === 'string' ? 'tokens' : String(res.json.error);

/** What each behaviour's last poll answers, on a server at `issuer` with the clock `clock`. */
const BEHAVIOURS: Record<Behaviour, (issuer: string, clock: FakeClock) => Promise<string>> = {
  async pending(issuer) {
    const device = await startDevice(issuer);
    return outcome(await poll(issuer, device.device_code));
  },
  async 'fast poll'(issuer, clock) {
    const device = await startDevice(issuer);
    await poll(issuer, device.device_code);
    clock.advance(1);
    return outcome(await poll(issuer, device.device_code));
  },
  async denied(issuer) {
    const device = await startDevice(issuer);
    await activate(device.verification_uri, device.user_code, { decision: 'deny' });
    return outcome(await poll(issuer, device.device_code));
  },
  async 'poll after success'(issuer, clock) {
    const device = await startDevice(issuer);
    await activate(device.verification_uri, device.user_code, { decision: 'approve' });
    expect(outcome(await poll(issuer, device.device_code))).toBe('tokens');
    clock.advance(5);
    return outcome(await poll(issuer, device.device_code));
  },
};

const CLEAN: Record<Behaviour, string> = {
  pending: 'authorization_pending',
  'fast poll': 'slow_down',
  denied: 'access_denied',
  'poll after success': 'invalid_grant',
};

const FLAWED: [FlawName, Behaviour, string][] = [
  ['device-tokens-before-approval', 'pending', 'tokens'],
  ['device-no-slow-down', 'fast poll', 'authorization_pending'],
  ['device-denial-ignored', 'denied', 'tokens'],
  ['device-code-reuse', 'poll after success', 'tokens'],
];

const behaviours = Object.keys(CLEAN) as Behaviour[];

describe('with no flaw', () => {
  const clock = new FakeClock();
  const ctx = useServer({ now: clock.now });

  it.each(behaviours)('%s gets its RFC 8628 answer', async (behaviour) => {
    expect(await BEHAVIOURS[behaviour](ctx.issuer, clock)).toBe(CLEAN[behaviour]);
  });
});

describe.each(FLAWED)('flaw %s', (flaw, changed, flawed) => {
  const clock = new FakeClock();
  const ctx = useServer({ flaws: [flaw], now: clock.now });

  it(`changes "${changed}" from ${CLEAN[changed]} to ${flawed}`, async () => {
    expect(await BEHAVIOURS[changed](ctx.issuer, clock)).toBe(flawed);
  });

  it.each(behaviours.filter((b) => b !== changed))('leaves "%s" as it is', async (behaviour) => {
    expect(await BEHAVIOURS[behaviour](ctx.issuer, clock)).toBe(CLEAN[behaviour]);
  });
});

describe('flaw device-code-low-entropy', () => {
  const clock = new FakeClock();
  const clean = useServer({ now: clock.now });
  const flawed = useServer({ flaws: ['device-code-low-entropy'], now: clock.now });

  it('issues eight-digit counters as device codes, and the flow still works with them', async () => {
    expect((await startDevice(clean.issuer)).device_code).toMatch(/^[\w-]{43}$/);
    const [first, second] = [await startDevice(flawed.issuer), await startDevice(flawed.issuer)];
    expect(first.device_code).toMatch(/^\d{8}$/);
    expect(Number(second.device_code)).toBe(Number(first.device_code) + 1);
    for (const behaviour of behaviours) {
      expect(await BEHAVIOURS[behaviour](flawed.issuer, clock), behaviour).toBe(CLEAN[behaviour]);
    }
  });
});

/**
 * Clients of the fault-injection test (faults.test.ts): whole code flows over HTTP against `serve` instances on one
 * Redis (sign-in at one instance, redemption at the other, two refreshes), each answer judged as a client sees it.
 * A success, or an outage answer that asks to come back (503 with Retry-After, or a redirect with
 * error=temporarily_unavailable), is fine: the client waits the Retry-After and tries the same step again (the same
 * code, the same refresh token). Anything else is `bad`. A code or refresh token refused after an outage answer
 * (invalid_grant on the retry) is a token lost. An instance that refuses connections is out (a load balancer takes it
 * out): the client goes to another; a request that got no answer at all (the instance was killed under it) is `cut`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { SEEDED_CLIENTS, SEEDED_USER } from '../../reference/index.ts';
import { basic } from '../support/reference.ts';

export const CLIENT = SEEDED_CLIENTS.confidential;
const REDIRECT_URI = CLIENT.redirectUris[0]!;

export interface Instance {
  name: string;
  url: string;
  /** False once it refused a connection (killed or stopped). */
  up: boolean;
}

/** What the clients saw, for the test's assertions. */
export class Tally {
  /** Answers by kind: "200", "303 code", "503 Retry-After", "303 temporarily_unavailable", … */
  readonly answers = new Map<string, number>();
  /** Answers other than a success or an outage answer, described. */
  readonly bad: string[] = [];
  /** Codes and refresh tokens refused on the retry after an outage answer. */
  readonly lost: string[] = [];
  /** The same, after a request cut by an instance's kill (the request may have been carried out unanswered). */
  readonly lostToKill: string[] = [];
  /** Successful answers per code or refresh token (more than one would be a double redemption). */
  readonly redeemed = new Map<string, number>();
  readonly flowsDone: number[] = [];
  cut = 0;
  refused = 0;
  /** Epoch ms of every outage answer and of every success, to see the outage and the recovery. */
  readonly outageAt: number[] = [];
  readonly successAt: number[] = [];

  count(kind: string): void {
    this.answers.set(kind, (this.answers.get(kind) ?? 0) + 1);
  }
}

type Answer = { status: number; headers: Headers; text: string };
type Outcome = { kind: 'answer'; answer: Answer } | { kind: 'refused' } | { kind: 'cut' };

async function send(instance: Instance, path: string, init: RequestInit): Promise<Outcome> {
  try {
    const response = await fetch(`${instance.url}${path}`, {
      ...init,
      redirect: 'manual',
      signal: AbortSignal.timeout(30_000),
    });
    return {
      kind: 'answer',
      answer: { status: response.status, headers: response.headers, text: await response.text() },
    };
  } catch (err) {
    const code = (err as { cause?: { code?: string } }).cause?.code;
    if (code === 'ECONNREFUSED') {
      instance.up = false;
      return { kind: 'refused' };
    }
    return { kind: 'cut' };
  }
}

/** Seconds to wait when the answer is an outage answer, else undefined; a 503 without Retry-After is bad. */
function outageWait(tally: Tally, answer: Answer, what: string): number | undefined {
  const retryAfter = answer.headers.get('retry-after');
  if (answer.status === 503) {
    if (retryAfter === null || !/^\d+$/.test(retryAfter)) {
      tally.bad.push(`${what}: 503 without Retry-After`);
      return 1;
    }
    tally.count('503 Retry-After');
    tally.outageAt.push(Date.now());
    return Number(retryAfter);
  }
  const location = answer.headers.get('location') ?? '';
  if (answer.status === 303 && location.includes('error=temporarily_unavailable')) {
    tally.count('303 temporarily_unavailable');
    tally.outageAt.push(Date.now());
    return 1;
  }
  return undefined;
}

export interface FlowSetup {
  tally: Tally;
  /** Where the user signs in. */
  signIn: () => Instance;
  /** The instances, in the order a step prefers them (the first that is up). */
  instances: Instance[];
  /** True when no new flow should start. */
  stopping: () => boolean;
  /** A bound on any one step, however long the outage (the test fails rather than hangs). */
  deadline: number;
}

/** The first instance that is up, from `start` on. */
function pick(setup: FlowSetup, start: number): Instance {
  const { instances } = setup;
  for (let i = 0; i < instances.length; i++) {
    const instance = instances[(start + i) % instances.length]!;
    if (instance.up) return instance;
  }
  throw new Error('no instance is up');
}

/** The answer of a sign-in request, or undefined (after the wait) when there was none or it was an outage answer. */
async function pageAnswer(tally: Tally, what: string, sent: Promise<Outcome>): Promise<Answer | undefined> {
  const outcome = await sent;
  const wait = outcome.kind === 'answer' ? outageWait(tally, outcome.answer, what) : 0.1;
  if (wait === undefined && outcome.kind === 'answer') return outcome.answer;
  await delay((wait ?? 0) * 1000);
  return undefined;
}

/** Signs the user in at the sign-in instance: the code (after as many outage answers as it takes). */
async function signIn(setup: FlowSetup, challenge: string, state: string): Promise<string> {
  const { tally } = setup;
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: CLIENT.clientId,
    redirect_uri: REDIRECT_URI,
    scope: 'openid offline_access',
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  while (Date.now() < setup.deadline) {
    const at = setup.signIn();
    const page = await pageAnswer(tally, 'GET /auth', send(at, `/auth?${query}`, {}));
    if (!page) continue;
    const action = /<form method="post" action="([^"]+)"/.exec(page.text)?.[1];
    const cookie = page.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    if (page.status !== 200 || action === undefined) {
      tally.bad.push(`GET /auth: ${page.status} ${page.text.slice(0, 200)}`);
      await delay(1000);
      continue;
    }
    tally.count('200 login page');
    const posted = send(at, new URL(action).pathname, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ username: SEEDED_USER.username, password: SEEDED_USER.password }),
    });
    const login = await pageAnswer(tally, 'POST login', posted);
    if (!login) continue;
    const location = new URL(login.headers.get('location') ?? 'about:blank');
    const code = location.searchParams.get('code');
    if (login.status !== 303 || code === null || location.searchParams.get('state') !== state) {
      tally.bad.push(`POST login: ${login.status} ${login.text.slice(0, 200)}`);
      await delay(1000);
      continue;
    }
    tally.count('303 code');
    tally.successAt.push(Date.now());
    return code;
  }
  throw new Error('sign-in did not succeed before the deadline');
}

/**
 * One token request for a single-use credential, at the preferred instance (or the next one up), repeated after
 * outage answers until it succeeds; undefined when the credential was lost.
 */
async function tokenStep(
  setup: FlowSetup,
  prefer: number,
  credential: string,
  params: Record<string, string>,
): Promise<Record<string, string> | undefined> {
  const { tally } = setup;
  let outage = false;
  let cut = false;
  while (Date.now() < setup.deadline) {
    const at = pick(setup, prefer);
    const sent = await send(at, '/token', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basic(CLIENT.clientId, CLIENT.clientSecret!),
      },
      body: new URLSearchParams(params),
    });
    if (sent.kind === 'refused') {
      tally.refused++;
      continue;
    }
    if (sent.kind === 'cut') {
      tally.cut++;
      cut = true;
      continue;
    }
    const { answer } = sent;
    const wait = outageWait(tally, answer, `POST /token ${params.grant_type}`);
    if (wait !== undefined) {
      outage = true;
      await delay(wait * 1000);
      continue;
    }
    if (answer.status === 200) {
      tally.count('200 tokens');
      tally.successAt.push(Date.now());
      tally.redeemed.set(credential, (tally.redeemed.get(credential) ?? 0) + 1);
      return JSON.parse(answer.text) as Record<string, string>;
    }
    const lostAfter = cut ? tally.lostToKill : outage ? tally.lost : undefined;
    if (answer.status === 400 && answer.text.includes('invalid_grant') && lostAfter) {
      lostAfter.push(`${params.grant_type}: ${answer.text.slice(0, 160)}`);
      return undefined;
    }
    tally.bad.push(`POST /token ${params.grant_type} at ${at.name}: ${answer.status} ${answer.text.slice(0, 200)}`);
    return undefined;
  }
  throw new Error(`${params.grant_type} did not succeed before the deadline`);
}

/**
 * Whole code flows, one after the other, until `stopping()`: signed in at one instance, the code redeemed at the
 * next, then refreshed twice (the next instance, then the first). Returns the refresh token the client holds last.
 */
export async function runFlows(setup: FlowSetup, client: number): Promise<string | undefined> {
  let held: string | undefined;
  for (let flow = 0; !setup.stopping(); flow++) {
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const code = await signIn(setup, challenge, randomBytes(8).toString('base64url'));
    const params = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier };
    let tokens = await tokenStep(setup, client + flow + 1, code, params);
    for (let refresh = 0; tokens && refresh < 2; refresh++) {
      const token = tokens.refresh_token!;
      tokens = await tokenStep(setup, client + flow + refresh, token, {
        grant_type: 'refresh_token',
        refresh_token: token,
      });
    }
    if (tokens?.refresh_token) {
      held = tokens.refresh_token;
      setup.tally.flowsDone.push(Date.now());
    }
  }
  return held;
}

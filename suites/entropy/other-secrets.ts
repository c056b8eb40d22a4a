import {
  CheckFailure,
  defineScenario,
  type RequirementRef,
  type ScenarioContext,
} from '../../harness/scenario/scenario.ts';
import { codeFlowClient, pushCodeRequest } from '../checks/index.ts';
import { DEVICE_CAPABILITIES } from '../checks/device.ts';
import { codeClientMetadata, registerOrFail, withRegistration } from '../checks/registration.ts';
import { estimateBits } from './codes-and-tokens.ts';

const SAMPLES = 4;
const MIN_BITS = 128;

interface Kind {
  name: string;
  per: RequirementRef;
  /** The values, SAMPLES of them; undefined with the reason when the target gives none. */
  sample(): Promise<string[] | string>;
}

async function registeredSecrets(ctx: ScenarioContext): Promise<string[] | string> {
  if (!ctx.target.endpoints.registration) return 'the target has no registration_endpoint';
  const secrets: string[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const registration = await registerOrFail(ctx, codeClientMetadata(ctx), `registration (sample ${i + 1})`);
    await withRegistration(ctx, registration, async () => {
      if (registration.clientSecret) secrets.push(registration.clientSecret);
    });
  }
  return secrets.length === SAMPLES ? secrets : 'the registrations of a client_secret_basic client issued no secret';
}

async function deviceCodes(ctx: ScenarioContext): Promise<string[] | string> {
  if (!ctx.clients.device) return 'no device client is configured';
  const missing = DEVICE_CAPABILITIES.filter((c) => !ctx.target.supports(c));
  if (missing.length) return `the target lacks ${missing.join(', ')}`;
  const codes: string[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const res = await ctx.flows.deviceAuthorization('device');
    if (typeof res.body.device_code === 'string') codes.push(res.body.device_code);
  }
  return codes.length === SAMPLES ? codes : 'a device authorization request returned no device_code';
}

async function requestUris(ctx: ScenarioContext): Promise<string[] | string> {
  if (!ctx.target.endpoints.pushedAuthorization) return 'the target has no pushed_authorization_request_endpoint';
  const client = codeFlowClient(ctx);
  if (!client) return 'no code-flow client with a redirect URI is configured';
  const uris: string[] = [];
  for (let i = 0; i < SAMPLES; i++) uris.push((await pushCodeRequest(ctx, client)).requestUri);
  return uris;
}

export default defineScenario({
  id: 'entropy.other-secrets',
  title: 'Registered client secrets, device codes and PAR request_uri values are unique and carry at least 128 bits',
  requirements: {
    rfc6819_5_1_4_2_2: {
      spec: 'RFC 6819',
      section: '5.1.4.2.2',
      level: 'SHOULD',
      party: 'server',
      note: 'client secrets with a reasonable level of entropy: at least 128 bits, from a strong random sequence',
    },
    rfc8628_5_2: {
      spec: 'RFC 8628',
      section: '5.2',
      level: 'SHOULD',
      party: 'server',
      note: 'a very high entropy device code',
    },
    rfc9126_7_1: {
      spec: 'RFC 9126',
      section: '7.1',
      level: 'MUST',
      party: 'server',
      note:
        'request URI entropy per RFC 9101 §10.2 (d): not guessable, the guidance being RFC 6819 §5.1.4.2.2 ' +
        '(128 bits)',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: { optionalRoles: ['keyed', 'confidential', 'public', 'confidential2', 'device'] },
  catches: ['device-code-low-entropy'],
  timeoutMs: 60_000,
  async run(ctx) {
    const kinds: Kind[] = [
      { name: 'registered client secret', per: ctx.req.rfc6819_5_1_4_2_2, sample: () => registeredSecrets(ctx) },
      { name: 'device code', per: ctx.req.rfc8628_5_2, sample: () => deviceCodes(ctx) },
      { name: 'PAR request_uri', per: ctx.req.rfc9126_7_1, sample: () => requestUris(ctx) },
    ];
    const notJudged: string[] = [];
    for (const kind of kinds) {
      const values = await kind.sample();
      if (typeof values === 'string') {
        notJudged.push(`${kind.name}s: ${values}`);
        continue;
      }
      const { bits, method } = estimateBits(values);
      ctx.evidence.note(`${kind.name}: about ${bits} bits at most — ${method}`, `${kind.name} entropy estimate`);
      await ctx.softly(() => {
        if (new Set(values).size !== values.length)
          throw new CheckFailure(
            `Two of ${SAMPLES} ${kind.name}s were identical; ${kind.per.label} requires values an attacker cannot ` +
              'guess.',
            { requirement: kind.per },
          );
        if (bits < MIN_BITS)
          throw new CheckFailure(
            `The ${kind.name}s carry at most about ${bits} bits of entropy (${method}); ${kind.per.label} asks for ` +
              `values that cannot be guessed, at least ${MIN_BITS} bits.`,
            { requirement: kind.per },
          );
      });
    }
    if (notJudged.length === kinds.length) ctx.skip(`nothing to judge: ${notJudged.join('; ')}`);
    if (notJudged.length) ctx.evidence.note(`Not judged — ${notJudged.join('; ')}.`, 'kinds');
  },
});

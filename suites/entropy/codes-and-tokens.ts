import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import { codeFlowClient, dpopExpected, dpopKey, jwtPayload, redeem, tokensOf } from '../checks/index.ts';
import { hasScopeToken } from '../../protocol/scope.ts';

const SAMPLES = 4;
const MIN_BITS = 128;

/** The smallest usual alphabet that holds every character seen (hex, base32, base64url, printable ASCII). */
function alphabet(chars: string): { name: string; size: number } {
  if (/^[0-9a-f]*$/.test(chars) || /^[0-9A-F]*$/.test(chars)) return { name: 'hex', size: 16 };
  if (/^[A-Z2-7]*$/.test(chars) || /^[a-z2-7]*$/.test(chars)) return { name: 'base32', size: 32 };
  if (/^[A-Za-z0-9_-]*$/.test(chars) || /^[A-Za-z0-9+/=]*$/.test(chars)) return { name: 'base64', size: 64 };
  return { name: 'printable ASCII', size: 95 };
}

/**
 * An upper bound on the entropy of values of one kind, from several samples: positions that are
 * the same in every sample (a fixed prefix, a version, a counter's high digits) count nothing;
 * every other position counts log2 of the alphabet the values are written in. A value that
 * passes may still be predictable; one that fails cannot hold 128 bits.
 */
export function estimateBits(samples: readonly string[]): { bits: number; method: string } {
  const sameLength = samples.every((s) => s.length === samples[0]!.length);
  const length = Math.min(...samples.map((s) => s.length));
  const varying = [...Array(length).keys()].filter((i) => new Set(samples.map((s) => s[i])).size > 1);
  const counted = sameLength ? varying.length : length;
  const chars = samples.map((s) => (sameLength ? varying.map((i) => s[i]).join('') : s)).join('');
  const a = alphabet(chars);
  const bits = Math.floor(counted * Math.log2(a.size));
  return {
    bits,
    method:
      `${counted} of ${length} characters vary across ${samples.length} samples ` +
      `(${a.name}, ${Math.log2(a.size).toFixed(2)} bits ` +
      `each)${sameLength ? '' : '; lengths differ, every character counted'}`,
  };
}

export default defineScenario({
  id: 'entropy.codes-and-tokens',
  title:
    'Authorization codes, refresh tokens and opaque access tokens are unique and carry at least 128 bits of entropy',
  requirements: {
    rfc6749_10_10: {
      spec: 'RFC 6749',
      section: '10.10',
      level: 'MUST',
      party: 'server',
      note: 'the probability of guessing a token or code is at most 2^-128',
    },
    rfc6819_5_1_4_2_2: {
      spec: 'RFC 6819',
      section: '5.1.4.2.2',
      level: 'SHOULD',
      party: 'server',
      note: 'codes and tokens with enough randomness',
    },
    fapi2_5_4_1: {
      spec: 'FAPI 2.0 SP',
      section: '5.4.1',
      level: 'MUST',
      party: 'server',
      note: 'credentials created with at least 128 bits of entropy',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    optionalRoles: ['keyed', 'confidential', 'public', 'confidential2'],
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:authorization', 'endpoint:token'],
  },
  catches: ['low-entropy-codes'],
  timeoutMs: 60_000,
  async run(ctx) {
    const client =
      codeFlowClient(ctx, (c) => c.role !== 'public' || !dpopExpected(ctx)) ??
      ctx.skip('needs a code-flow client with a redirect URI');
    const scope = hasScopeToken(client.scope, 'offline_access') ? client.scope : undefined;
    const kinds: Record<string, string[]> = {
      'authorization code': [],
      'refresh token': [],
      'opaque access token': [],
    };
    for (let i = 0; i < SAMPLES; i++) {
      // OIDC Core §11
      const code = await ctx.flows.code(client.role, scope ? { scope, params: { prompt: 'consent' } } : {});
      kinds['authorization code']!.push(code.code);
      const tokens = tokensOf(
        await redeem(
          ctx,
          client,
          code,
          dpopExpected(ctx) ? dpopKey(ctx) : undefined,
          `token request (sample ${i + 1})`,
        ),
        `redeeming sample code ${i + 1}`,
      );
      if (typeof tokens.refresh_token === 'string' && !jwtPayload(tokens.refresh_token))
        kinds['refresh token']!.push(tokens.refresh_token);
      if (!jwtPayload(tokens.access_token)) kinds['opaque access token']!.push(tokens.access_token);
    }
    const judged = Object.entries(kinds).filter(([, values]) => values.length === SAMPLES);
    ctx.evidence.note(
      Object.entries(kinds)
        .map(([kind, values]) =>
          values.length === SAMPLES
            ? ''
            : `${kind}: not judged ` +
              `(${
                values.length === 0
                  ? 'none issued, or JWTs (their signature is their ' + 'protection)'
                  : 'not in every sample'
              })`,
        )
        .filter(Boolean)
        .join('\n') || 'every kind judged',
      'kinds',
    );
    for (const [kind, values] of judged) {
      const { bits, method } = estimateBits(values);
      ctx.evidence.note(`${kind}: about ${bits} bits at most — ${method}`, `${kind} entropy estimate`);
      await ctx.softly(() => {
        if (new Set(values).size !== values.length)
          throw new CheckFailure(
            `Two of ${SAMPLES} ${kind}s were identical; ${ctx.req.rfc6749_10_10} requires values an attacker ` +
              `cannot guess.`,
            { requirement: ctx.req.rfc6749_10_10 },
          );
        if (bits < MIN_BITS)
          throw new CheckFailure(
            `The ${kind}s carry at most about ${bits} bits of entropy (${method}); ${ctx.req.rfc6749_10_10} ` +
              `requires a guessing probability of at most 2^-128, i.e. at least 128 bits.`,
            { requirement: ctx.req.rfc6749_10_10 },
          );
      });
    }
  },
});

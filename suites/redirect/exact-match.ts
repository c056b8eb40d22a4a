import { parserConfusions, type RedirectUriNearMiss, redirectUriNearMiss } from '../../generators/index.ts';
import { type AuthorizeResult, CheckFailure, defineScenario, requiresPar } from '../../harness/scenario/scenario.ts';
import { expectRefusalIsFor } from '../checks/index.ts';
import { mcpRequirement } from '../../harness/model/mcp-requirement.ts';

/** What an authorization response may add to the redirect URI (RFC 6749 §4.1.2, §4.1.2.1; RFC 9207; OIDC Session). */
const SUCCESS_PARAMS = new Set(['code', 'state', 'iss', 'session_state']);
const ERROR_PARAMS = new Set(['error', 'error_description', 'error_uri', 'state', 'iss']);

/**
 * Whether a redirect lands on the registered redirect URI: the same resource as a browser resolves
 * it (WHATWG URL), the registered query intact, and nothing added but the response's own
 * parameters, each once (state as sent, iss the issuer). Anything else sends the user agent, and
 * the code or error, somewhere the client did not register.
 */
function landsOnRegistered(location: string, registered: string, sent: { state?: string; issuer: string }): boolean {
  let got: URL;
  let reg: URL;
  try {
    [got, reg] = [new URL(location), new URL(registered)];
  } catch {
    return false;
  }
  if (
    got.protocol !== reg.protocol ||
    got.username !== reg.username ||
    got.password !== reg.password ||
    got.host !== reg.host ||
    got.pathname !== reg.pathname
  )
    return false;
  const added = [...got.searchParams];
  for (const [name, value] of reg.searchParams) {
    const at = added.findIndex(([k, v]) => k === name && v === value);
    if (at < 0) return false;
    added.splice(at, 1);
  }
  added.push(...new URLSearchParams(got.hash.slice(1)));
  const names = added.map(([name]) => name);
  const allowed = names.includes('code') ? SUCCESS_PARAMS : ERROR_PARAMS;
  return (
    new Set(names).size === names.length &&
    added.every(
      ([name, value]) =>
        allowed.has(name) && (name !== 'state' || value === sent.state) && (name !== 'iss' || value === sent.issuer),
    )
  );
}

function destination(location: string): string {
  try {
    const u = new URL(location);
    return `${u.protocol}//${u.username ? `${u.username}${u.password ? ':…' : ''}@` : ''}${u.host}${u.pathname}`;
  } catch {
    return JSON.stringify(location);
  }
}

function carrying(outcome: AuthorizeResult & { kind: 'redirect' }): string {
  if (outcome.params.code) return 'with an authorization code';
  if (outcome.params.error) return `with error=${outcome.params.error}`;
  return 'without a code';
}

const CAVEATS: Record<NonNullable<RedirectUriNearMiss['caveat']>, string> = {
  'same-resource': 'a browser resolves it to the registered URI (lax, not exploitable)',
  'loopback-port': 'only the port of a loopback redirect URI differs, which RFC 8252 §7.3 requires servers to allow',
};

export default defineScenario({
  id: 'redirect.exact-match',
  title:
    'Redirect URIs that nearly match the registered one (prefix, case, port, path, host, encoding…) are refused and ' +
    'never redirected to',
  requirements: {
    rfc9700_4_1_3: { spec: 'RFC 9700', section: '4.1.3', level: 'MUST', party: 'server' },
    rfc6749_3_1_2_4: { spec: 'RFC 6749', section: '3.1.2.4', level: 'MUST', party: 'server' },
    specAuthentication: {
      spec: 'SPEC',
      section: 'Authentication',
      level: 'MUST',
      party: 'server',
      note: 'rule 5: exact match, no substring or wildcard',
    },
    mcp_2025_06_18: mcpRequirement('redirect/exact', '2025-06-18'),
    mcp_2025_11_25: mcpRequirement('redirect/exact', '2025-11-25'),
    mcp_2026_07_28: mcpRequirement('redirect/exact', '2026-07-28'),
  },
  severity: 'critical',
  appliesTo: 'oauth2',
  requires: { roles: ['confidential'], user: true, capabilities: ['endpoint:authorization'] },
  catches: ['redirect-prefix-match', 'redirect-open-on-error'],
  async run(ctx) {
    const client = ctx.client('confidential');
    const registered =
      client.redirectUri ?? ctx.skip('the confidential client has no redirectUri in the target config');
    const accepted = new Map<string, string>();
    const refused = new Set<string>();
    // Where the target requires PAR, every request is pushed, the confidential client authenticated: RFC 9126 §2.4
    // lets the server relax exact matching then ("MAY be relaxed ... for a confidential client using pushed
    // authorization requests"), so a near miss taken is noted, never failed.
    const pushed = requiresPar(ctx.target);
    const relaxed = new Set<string>();
    /** One near miss tried: a refusal is noted, a redirect anywhere but the registered URI fails. */
    const tryNearMiss = async (nearMiss: { kind: string; uri: string; caveat?: RedirectUriNearMiss['caveat'] }) => {
      const pkce = ctx.pkce.create();
      const outcome = await ctx.authorize(
        'confidential',
        {
          redirect_uri: nearMiss.uri,
          code_challenge: pkce.challenge,
          code_challenge_method: pkce.method,
        },
        { session: 'shared' },
      );
      if (outcome.kind === 'page') {
        refused.add(nearMiss.kind); // refused: the user stays at the authorization server
        return;
      }
      if (
        landsOnRegistered(outcome.url, registered, {
          ...(outcome.request.state ? { state: outcome.request.state } : {}),
          issuer: ctx.target.issuer,
        })
      ) {
        if (outcome.params.code) accepted.set(nearMiss.kind, `${nearMiss.uri}: answered on the registered URI`);
        return;
      }
      if (nearMiss.caveat) {
        accepted.set(nearMiss.kind, `${nearMiss.uri}: accepted; ${CAVEATS[nearMiss.caveat]}`);
        return;
      }
      if (pushed) {
        relaxed.add(nearMiss.kind);
        accepted.set(nearMiss.kind, `${nearMiss.uri}: accepted in a pushed request (RFC 9126 §2.4 allows it)`);
        return;
      }
      throw new CheckFailure(
        `The authorization request with redirect_uri ${nearMiss.uri} (near miss "${nearMiss.kind}" of the ` +
          `registered ${registered}) ` +
          `was redirected to ${destination(outcome.url)} ${carrying(outcome)}; RFC 9700 §4.1.3 requires exact ` +
          `string matching of redirect URIs, ` +
          'and RFC 6749 §3.1.2.4 forbids redirecting to one that does not match.',
      );
    };
    // The random near misses first: a failure among them is shrunk to the smallest counterexample, with its replay.
    await ctx.property(redirectUriNearMiss(registered), tryNearMiss, {
      label: `near misses of ${registered}`,
      show: (n) => `${n.uri} (${n.kind})`,
    });
    // Then the URIs that confuse URL parsers (userinfo, backslash, encoded slash, dot segments, case, IDN), every run.
    const fixed = parserConfusions(registered);
    for (const nearMiss of fixed) await tryNearMiss(nearMiss);
    ctx.evidence.note(
      `${fixed.length} parser-confusion cases tried: ${fixed.map((c) => `${c.uri} (${c.kind})`).join(', ')}`,
      'fixed near misses',
    );
    if (accepted.size) {
      ctx.evidence.note([...accepted.values()].join('\n'), 'near misses accepted without harm');
    }
    if (relaxed.size && !refused.size)
      ctx.skip(
        'the target requires pushed authorization requests and took every near miss the confidential client ' +
          'pushed: RFC 9126 §2.4 lets a server relax exact matching for a confidential client using PAR, and no ' +
          'request reaches the authorization endpoint unpushed, so nothing here is judged',
      );
    // The control: a refusal counts only if the registered redirect URI gets a code in the same run.
    if (refused.size)
      await expectRefusalIsFor(
        ctx,
        'confidential',
        `with a near-miss redirect URI (${[...refused].join(', ')}) was refused`,
        'the redirect URI not matching',
      );
  },
});

import {
  CheckFailure,
  defineScenario,
  type HttpResponse,
  PreconditionError,
  type ScenarioContext,
} from '../../harness/scenario/scenario.ts';
import { codeFlowClient, describeResponse } from '../checks/index.ts';

/** A host no one serves (RFC 2606 .invalid): where a server that trusts the header would send the user. */
const SPOOFED_HOST = 'idp-conformance-attacker.invalid';

/** The two headers a server may take its own host from: Host itself, and the one proxies add. */
const SPOOFS = [
  { header: 'host', label: `Host: ${SPOOFED_HOST}` },
  { header: 'x-forwarded-host', label: `X-Forwarded-Host: ${SPOOFED_HOST}` },
] as const;

const namesSpoofed = (value: unknown): boolean =>
  typeof value === 'string' && value.toLowerCase().includes(SPOOFED_HOST);

/** Where a redirect goes, resolved against the request URL (RFC 9110 §10.2.2), or undefined for none. */
function redirectTarget(res: HttpResponse, url: string): string | undefined {
  const location = res.status >= 300 && res.status < 400 ? res.header('location') : undefined;
  if (location === undefined) return undefined;
  try {
    return new URL(location, url).href;
  } catch {
    return location;
  }
}

async function checkMetadata(ctx: ScenarioContext<'rfc8414_3_3' | 'rfc9700_4_11_2'>, spoof: (typeof SPOOFS)[number]) {
  const url = ctx.target.discoveryUrl;
  const res = await ctx.http.get(url, {
    headers: { [spoof.header]: SPOOFED_HOST },
    label: `discovery with ${spoof.label}`,
  });
  if (res.status !== 200 || typeof res.body.issuer !== 'string') {
    ctx.evidence.note(`Discovery with ${spoof.label} answered ${describeResponse(res)}: no metadata named anything.`);
    return;
  }
  const named = Object.entries(res.body)
    .filter(([, value]) => namesSpoofed(value))
    .map(([field]) => field);
  if (res.body.issuer !== ctx.target.issuer)
    throw new CheckFailure(
      `The metadata fetched from ${url} with ${spoof.label} names the issuer ${JSON.stringify(res.body.issuer)}` +
        `${named.length ? ` (the spoofed host in ${named.join(', ')})` : ''}, not ${ctx.target.issuer}; ` +
        `${ctx.req.rfc8414_3_3.label} requires the issuer identifier the well-known URI was built from, whatever ` +
        'header the request carried (a cache in front would serve the poisoned document to everyone).',
      { requirement: ctx.req.rfc8414_3_3 },
    );
  // RFC 8414 §3.3 binds the issuer alone: endpoints built from the request's host are noted, never judged.
  ctx.evidence.note(
    named.length
      ? `Discovery with ${spoof.label}: the issuer unchanged, but the spoofed host in ${named.join(', ')} (built ` +
          'from the request; no sentence binds these fields to the issuer, so not judged).'
      : `Discovery with ${spoof.label}: the issuer and every endpoint unchanged.`,
  );
}

async function checkAuthorization(
  ctx: ScenarioContext<'rfc8414_3_3' | 'rfc9700_4_11_2'>,
  spoof: (typeof SPOOFS)[number],
  url: string,
) {
  const res = await ctx.http.get(url, {
    headers: { [spoof.header]: SPOOFED_HOST },
    label: `authorization request with ${spoof.label}`,
  });
  const target = redirectTarget(res, url);
  const formActions = [...(res.text ?? '').matchAll(/\baction\s*=\s*["']([^"']*)["']/gi)].map((m) => m[1] ?? '');
  const spoofed = [target, ...formActions].filter(namesSpoofed);
  if (spoofed.length)
    throw new CheckFailure(
      `The authorization request with ${spoof.label} was answered with ${describeResponse(res)} whose redirect or ` +
        `form sends the user agent to ${spoofed.join(', ')}; ${ctx.req.rfc9700_4_11_2.label}: a redirect or a ` +
        'login form whose target follows a request header makes the authorization server an open redirector to ' +
        'the host an attacker names.',
      { requirement: ctx.req.rfc9700_4_11_2 },
    );
  ctx.evidence.note(
    `The authorization request with ${spoof.label} answered ${describeResponse(res)}` +
      `${target ? `, redirecting to ${target}` : ''}: nothing names the spoofed host.`,
  );
}

export default defineScenario({
  id: 'redirect.host-header',
  title: 'A spoofed Host or X-Forwarded-Host header changes neither the issuer the server names nor where it redirects',
  requirements: {
    rfc8414_3_3: {
      spec: 'RFC 8414',
      section: '3.3',
      level: 'MUST',
      party: 'server',
      note: 'the issuer returned is the issuer identifier the well-known URI was built from',
    },
    rfc9700_4_11_2: {
      spec: 'RFC 9700',
      section: '4.11.2',
      level: 'MUST',
      party: 'server',
      note: 'the authorization server must take precautions not to be an open redirector',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    optionalRoles: ['keyed', 'confidential', 'public', 'confidential2'],
    capabilities: ['endpoint:authorization'],
  },
  catches: ['host-header-trusted'],
  async run(ctx) {
    const client = codeFlowClient(ctx) ?? ctx.skip('needs a code-flow client with a redirect URI');
    const pkce = ctx.pkce.create();
    const { url } = ctx.authorizationUrl(client.role, {
      code_challenge: pkce.challenge,
      code_challenge_method: pkce.method,
    });
    // The control: the same requests without the spoofed header are answered (metadata, and a page or a redirect).
    const plain = await ctx.http.get(url, { label: 'authorization request without a spoofed header' });
    if (plain.status >= 500)
      throw new PreconditionError(`the plain authorization request got ${describeResponse(plain)}`);
    for (const spoof of SPOOFS) {
      await ctx.softly(() => checkMetadata(ctx, spoof));
      await ctx.softly(() => checkAuthorization(ctx, spoof, url));
    }
  },
});

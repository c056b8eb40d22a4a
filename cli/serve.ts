/** `idp-conformance serve`: the reference server as a real IdP, until SIGINT or SIGTERM. */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import {
  createReferenceServer,
  FLAW_NAMES,
  FLAWS,
  isFlawName,
  isSigningAlg,
  isVariantName,
  type KeySet,
  mcpResourceOf,
  RedisStore,
  SIGNING_ALGS,
  STORE_TIMEOUT_MS,
  sharedKeySet,
  type SigningAlg,
  targetConfig,
  VARIANT_NAMES,
  VARIANTS,
  MAX_TEST_USERS,
  testUsers,
  type FlawName,
  type VariantName,
  type ReferenceOptions,
  type ReferenceServer,
} from '../reference/index.ts';
import { parseOptions, UsageError, type Command } from './command.ts';
import { codeLifetimeOption } from './run-options.ts';
import { renamedFlawHint } from './hints.ts';
import { errorMessage } from '../protocol/guards.ts';

const USAGE = `Usage: idp-conformance serve [options]
       npm run serve -- [options]

Starts the reference authorization server with its seeded clients and user.

Options:
  --port N           port to listen on (default 9000; 0 picks a free port)
  --host H           address to bind (default 127.0.0.1)
  --issuer URL       fixed issuer, e.g. when behind a proxy (default http://HOST:PORT)
  --flaw NAME        switch on a planted flaw (repeatable; for testing the harness only)
  --list-flaws       list every planted flaw with what it breaks, and exit
  --variant NAME     switch on a variant: a behaviour the specifications allow and a real product
                     has (repeatable); the catalog's verdicts must not change under any
  --list-variants    list every variant with what it does and the product that behaves so, and exit
  --users N          seed N test users (alice, alice-2 … alice-N, 1 to 16; default 1): the harness
                     runs scenarios that act as a user at once, one per user (--target-out writes them
                     as users)
  --slow-ms N        with --variant slow: the delay added to every response (default 250)
  --signing-alg ALG  RS256 (default; ES256 with --variant signing-es256), PS256, ES256 or EdDSA
  --legacy-client    also seed the legacy client (password, implicit and hybrid grants)
  --auto-login USER  sign USER in at every authorization request without the login page
                     (for headless clients under test; never for a real IdP)
  --store URL        where codes, tokens and sessions live: memory (default) or redis://HOST:PORT[/DB];
                     instances on one Redis share state and signing keys (run them behind one
                     load balancer with --issuer set to its URL)
  --fapi2            the FAPI 2.0 Security Profile's server settings: PAR required, DPoP
                     required, private_key_jwt only (use the keyed client; run --profile fapi2)
  --registration     offer dynamic client registration (RFC 7591) at {issuer}/register, open to
                     anyone, with RFC 7592 management; registered clients live in the store
  --registration-token TOKEN
                     the same, but registering needs "Authorization: Bearer TOKEN" (an initial
                     access token); implies --registration
  --code-lifetime S  authorization codes live S seconds (default 60); the target config says so
                     (codeLifetimeSeconds), which code.lifetime waits out under --with-waits
  --oauth-only       an OAuth 2.0 authorization server without OpenID Connect: RFC 8414
                     metadata at /.well-known/oauth-authorization-server only, no openid
                     scope, no ID tokens, no userinfo or end-session endpoint
  --mcp              an MCP authorization server and protected resource: Client ID Metadata
                     Documents (a client_id that is an https URL), the protected endpoint
                     {origin}/mcp with its metadata at
                     {origin}/.well-known/oauth-protected-resource/mcp, RFC 8414 metadata too
  --cimd-allow-loopback
                     a TEST switch for --mcp: fetch client metadata documents from http URLs on
                     loopback (127.0.0.1, [::1], localhost); never on a real server
  --backchannel-logout-uri URL
                     the seeded confidential client's backchannel_logout_uri: where a logout
                     POSTs its logout token, e.g. http://127.0.0.1:8931/backchannel-logout (the
                     harness listens there during logout.back-channel; --target-out writes it)
  --target-out FILE  write a target config for the harness (docs/target-config.md) to FILE
  --admin-hooks      expose the key-rotation hook (POST to a secret URL) that the
                     jwks.rotation scenario calls; --target-out writes it as
                     hooks.rotateKeys. Off by default: for test setups only
  --store-timeout-ms N
                     the longest one call to the Redis store may take (default 2000); a request
                     the store does not answer in time, or while it is down, gets 503 with
                     Retry-After (temporarily_unavailable)
  --shutdown-grace-ms N
                     on SIGTERM or SIGINT: stop accepting, give the requests in flight up to N ms
                     to finish (default 10000), then exit 0; a second signal exits at once
  -h, --help         show this help

GET /healthz answers 200 while the process runs; GET /readyz 200 when the store answers
and the signing key is loaded, 503 otherwise and during a stop (for load balancers).

Stop it with Ctrl+C (SIGINT) or SIGTERM: requests in flight are finished first.`;

export const serveCommand: Command = {
  summary: 'start the reference authorization server',
  usage: USAGE,
  async run(argv) {
    const values = parseOptions(argv, {
      port: { type: 'string', default: '9000' },
      host: { type: 'string', default: '127.0.0.1' },
      issuer: { type: 'string' },
      flaw: { type: 'string', multiple: true, default: [] },
      'list-flaws': { type: 'boolean' },
      variant: { type: 'string', multiple: true, default: [] },
      'list-variants': { type: 'boolean' },
      'signing-alg': { type: 'string' },
      users: { type: 'string', default: '1' },
      'slow-ms': { type: 'string' },
      'legacy-client': { type: 'boolean', default: false },
      fapi2: { type: 'boolean', default: false },
      'oauth-only': { type: 'boolean', default: false },
      'code-lifetime': { type: 'string' },
      mcp: { type: 'boolean', default: false },
      'cimd-allow-loopback': { type: 'boolean', default: false },
      'auto-login': { type: 'string' },
      'target-out': { type: 'string' },
      'backchannel-logout-uri': { type: 'string' },
      store: { type: 'string', default: 'memory' },
      'admin-hooks': { type: 'boolean', default: false },
      registration: { type: 'boolean', default: false },
      'registration-token': { type: 'string' },
      'store-timeout-ms': { type: 'string', default: String(STORE_TIMEOUT_MS) },
      'shutdown-grace-ms': { type: 'string', default: '10000' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    if (values['list-flaws']) {
      console.log(flawList());
      return 0;
    }
    if (values['list-variants']) {
      console.log(variantList());
      return 0;
    }
    const port = parsePort(values.port);
    const storeTimeoutMs = parseMs('--store-timeout-ms', values['store-timeout-ms'], 1);
    const graceMs = parseMs('--shutdown-grace-ms', values['shutdown-grace-ms'], 0);
    const flaws = parseFlaws(values.flaw);
    const variants = parseVariants(values.variant);
    const users = parseUsers(values.users);
    const slowMs = values['slow-ms'] === undefined ? undefined : parseMs('--slow-ms', values['slow-ms'], 0);
    if (slowMs !== undefined && !variants.includes('slow'))
      throw new UsageError('--slow-ms sets the delay of --variant slow; add --variant slow');
    // The signing-es256 variant signs with ES256 (reference/variants.ts); another --signing-alg contradicts it.
    const es256 = variants.includes('signing-es256');
    const signingAlg = values['signing-alg'] ?? (es256 ? 'ES256' : 'RS256');
    if (!isSigningAlg(signingAlg))
      throw new UsageError(`--signing-alg must be one of ${SIGNING_ALGS.join(', ')}, not "${signingAlg}"`);
    if (es256 && signingAlg !== 'ES256')
      throw new UsageError(`--variant signing-es256 signs with ES256, not --signing-alg ${signingAlg}`);
    const shared = await openStore(values.store, signingAlg, es256);
    if (!shared) return 1;
    let server: ReferenceServer;
    try {
      server = createReferenceServer({
        flaws,
        variants,
        signingAlg,
        legacyClient: values['legacy-client'],
        ...(users > 1 ? { users: testUsers(users) } : {}),
        ...(slowMs === undefined ? {} : { slowMs }),
        adminHooks: values['admin-hooks'],
        ...registrationOption(values.registration, values['registration-token']),
        ...(values.issuer === undefined ? {} : { issuer: values.issuer }),
        ...(values['auto-login'] === undefined ? {} : { autoLogin: values['auto-login'] }),
        ...(values['backchannel-logout-uri'] === undefined
          ? {}
          : { backchannelLogoutUri: values['backchannel-logout-uri'] }),
        ...shared,
        ...(shared.store ? { storeTimeoutMs, onStoreChange: reportStore } : {}),
        ...(values.fapi2 ? { profile: 'fapi2' as const } : {}),
        ...(values['oauth-only'] ? { oauthOnly: true } : {}),
        ...codeLifetimeOption(values['code-lifetime']),
        ...(values.mcp ? { mcp: true } : {}),
        ...(values['cimd-allow-loopback'] ? { cimdAllowLoopback: true } : {}),
      });
    } catch (err) {
      throw new UsageError(errorMessage(err));
    }
    try {
      await server.listen(port, values.host);
    } catch (err) {
      await server.close();
      console.error(`idp-conformance serve: cannot listen on ${values.host}:${port}: ${errorMessage(err)}`);
      return 1;
    }
    const stopped = stopOnSignal(server, graceMs);
    printBanner(server, flaws, variants);
    const targetOut = values['target-out'];
    if (targetOut !== undefined) {
      const file = resolve(targetOut);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, `${JSON.stringify(targetConfig(server), null, 2)}\n`);
      console.log(`Target config written to ${file}`);
    }
    console.log('Press Ctrl+C to stop.');
    await stopped;
    return 0;
  },
};

/**
 * `--store`: memory (nothing to open), or a Redis store that answers, with the signing key every
 * instance on it shares. Undefined (after saying why) when Redis cannot be reached.
 */
async function openStore(
  value: string,
  alg: SigningAlg,
  rs256Beside = false,
): Promise<{ store?: RedisStore; keys?: KeySet } | undefined> {
  if (value === 'memory') return {};
  if (!/^rediss?:\/\//.test(value)) throw new UsageError(`--store must be memory or a redis:// URL, not "${value}"`);
  const store = new RedisStore({
    url: value,
    redis: { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null },
  });
  store.client.on('error', () => {}); // reported below, once
  try {
    await store.client.connect();
    await store.ready();
    // From now on an outage fails fast (503, store/outage.ts) and recovers by itself: no command waits in a queue
    // for a connection, none is sent again after a reconnect (the client had its 503), reconnect within a second.
    Object.assign(store.client.options, {
      retryStrategy: (times: number) => Math.min(times * 100, 1000),
      enableOfflineQueue: false,
      autoResendUnfulfilledCommands: false,
      maxRetriesPerRequest: 0,
    });
    return { store, keys: await sharedKeySet(store, alg, { rs256Beside }) };
  } catch (err) {
    await store.close();
    const where = new URL(value);
    console.error(`idp-conformance serve: cannot use the Redis store at ${where.host}: ${errorMessage(err)}`);
    return undefined;
  }
}

/** `--registration` and `--registration-token` as the `registration` option. */
function registrationOption(
  open: boolean | undefined,
  token: string | undefined,
): Pick<ReferenceOptions, 'registration'> {
  if (token !== undefined) {
    if (token.trim() === '') throw new UsageError('--registration-token needs a non-empty token');
    return { registration: { initialAccessToken: token } };
  }
  return open ? { registration: true } : {};
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535)
    throw new UsageError(`--port must be an integer from 0 to 65535, not "${value}"`);
  return port;
}

function parseFlaws(names: string[]): FlawName[] {
  for (const name of names) {
    if (!isFlawName(name))
      throw new UsageError(`unknown flaw "${name}"${renamedFlawHint(name)}; the planted flaws are:\n${flawList()}`);
  }
  return [...new Set(names.filter(isFlawName))];
}

export function parseVariants(names: string[]): VariantName[] {
  for (const name of names) {
    if (!isVariantName(name)) throw new UsageError(`unknown variant "${name}"; the variants are:\n${variantList()}`);
  }
  return [...new Set(names.filter(isVariantName))];
}

/** Two lines a variant: its name and what it does, then the real product (or the sentence) it comes from. */
export function variantList(names: readonly VariantName[] = VARIANT_NAMES): string {
  const width = Math.max(...names.map((name) => name.length));
  return names
    .map(
      (name) =>
        `  ${name.padEnd(width)}  ${VARIANTS[name].does}\n  ${' '.repeat(width)}  source: ${VARIANTS[name].source}`,
    )
    .join('\n');
}

/** One line a flaw: its name and what it breaks. */
function flawList(names: readonly FlawName[] = FLAW_NAMES): string {
  const width = Math.max(...names.map((name) => name.length));
  return names.map((name) => `  ${name.padEnd(width)}  ${FLAWS[name]}`).join('\n');
}

/**
 * The first SIGINT or SIGTERM stops gracefully: no new connections, the requests in flight finished (at most
 * `graceMs`), then exit 0. A second one exits at once (status 1).
 */
function stopOnSignal(server: ReferenceServer, graceMs: number): Promise<void> {
  return new Promise((done) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      process.once('SIGINT', now);
      process.once('SIGTERM', now);
      console.log(`\n${signal}: stopping the reference server (finishing requests in flight, at most ${graceMs} ms).`);
      server.stop(graceMs).then(
        ({ cut }) => {
          if (cut > 0) console.error(`idp-conformance serve: ${cut} requests were still running after ${graceMs} ms`);
          else console.log('Stopped: every request in flight was answered.');
          done();
        },
        (err: unknown) => {
          console.error(`idp-conformance serve: error while stopping: ${errorMessage(err)}`);
          done();
        },
      );
    };
    const now = (signal: NodeJS.Signals) => {
      console.error(`${signal} again: stopping at once.`);
      process.exit(1);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** The store's outages, once when it stops answering and once when it is back (never its address or password). */
function reportStore(available: boolean, reason: string): void {
  const at = new Date().toISOString();
  if (available) console.log(`${at} store: answering again ${reason}`);
  else console.error(`${at} store: unreachable (${reason}); answering 503 with Retry-After until it is back`);
}

/** --users: how many test users to seed (reference/seeded-user.ts testUsers). */
export function parseUsers(value: string): number {
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || n < 1 || n > MAX_TEST_USERS)
    throw new UsageError(`--users must be a whole number from 1 to ${MAX_TEST_USERS}, not "${value}"`);
  return n;
}

/** A whole number of milliseconds of at least `min`. */
export function parseMs(flag: string, value: string, min: number): number {
  const ms = Number(value);
  if (!/^\d+$/.test(value) || ms < min || ms > 3_600_000)
    throw new UsageError(`${flag} must be a whole number of milliseconds from ${min} to 3600000, not "${value}"`);
  return ms;
}

/** The banner's line for dynamic client registration, when it is on. */
function registrationLine(server: ReferenceServer): string {
  const settings = server.context.registration;
  if (!settings) return '';
  const how = settings.initialAccessToken === undefined ? 'open' : 'with the initial access token';
  return `\n  register   ${server.issuer}/register (${how})`;
}

function printBanner(server: ReferenceServer, flaws: FlawName[], variants: VariantName[]): void {
  const { issuer, context } = server;
  if (variants.length > 0) console.log(`Variants on (legitimate behaviours, docs/fixture.md): ${variants.join(', ')}`);
  if (flaws.length > 0) {
    const line = '!'.repeat(78);
    const list = flawList(flaws).replace(/^ {2}/gm, '!!   ');
    console.error(`${line}
!! WARNING: PLANTED FLAWS ARE ON. This server is deliberately insecure.
!! Use it only to test the conformance harness, never as a real identity provider.
${list}
${line}`);
  }
  const autoLogin = context.options.autoLogin;
  if (autoLogin !== undefined) {
    const line = '!'.repeat(78);
    console.error(`${line}
!! WARNING: AUTO-LOGIN IS ON (--auto-login ${autoLogin}). Every authorization request is signed
!! in as "${autoLogin}" without a login page. For headless clients under test only.
${line}`);
  }
  const user = context.users[0];
  const rows = context.clients.map((client) => [
    client.role ?? '-',
    client.clientId,
    client.clientSecret ?? (client.jwks ? '(private_key_jwt)' : '(public)'),
    client.redirectUris[0] ?? '-',
    client.allowedScope,
  ]);
  const header = ['role', 'client_id', 'secret', 'redirect_uri', 'scope'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const format = (row: string[]) =>
    `    ${row.map((cell, i) => (i < row.length - 1 ? cell.padEnd(widths[i]!) : cell)).join('  ')}`;
  console.log(
    `idp-conformance reference server
  issuer     ${issuer}
  ${
    context.options.oauthOnly
      ? `metadata   ${issuer}/.well-known/oauth-authorization-server (OAuth 2.0 only: no openid scope, no ID tokens)`
      : `discovery  ${issuer}/.well-known/openid-configuration`
  }
  user       ${user ? `${user.username} / ${user.password}` : '(none)'}` +
      registrationLine(server) +
      (context.options.mcp ? `\n  mcp        ${mcpResourceOf(issuer)} (a protected resource; CIMD on)` : '') +
      `${
        context.options.profile === 'fapi2'
          ? '\n  settings   FAPI 2.0: PAR required, DPoP required, ' + 'private_key_jwt only (use the keyed client)'
          : ''
      }
  clients (seeded, secrets are test-only):
${[header, ...rows].map(format).join('\n')}`,
  );
}

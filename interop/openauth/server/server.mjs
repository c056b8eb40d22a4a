/**
 * OpenAuth 0.4.3 (@openauthjs/openauth) as its README sets it up on Node (hono + @hono/node-server), run by
 * interop/openauth/index.ts as a child process: `node server.mjs` with this folder's own node_modules (npm ci of
 * ./package-lock.json), on 127.0.0.1 at INTEROP_PORT, its state in memory (fresh each start).
 *
 * The set-up, and why (a careful deployer's choices; interop/openauth/index.ts and docs/interop.md say the same):
 * - issuer() with one provider, the Password provider with its built-in PasswordUI (a plain HTML form: email and
 *   password), and MemoryStorage: the README's example with nothing third-party. MemoryStorage keeps no file (no
 *   `persist`), so every start is fresh, signing and encryption keys included (generated on first use).
 * - allow: OpenAuth has no client registry and no client authentication. Its default allow() accepts any client_id
 *   with any loopback redirect URI (and any redirect URI on the issuer's own domain); the documented `allow` hook is
 *   replaced by an exact-match table of client ids and their redirect URIs (INTEROP_CLIENTS), as a deployer must.
 * - ttl.retention 1 day: OpenAuth keeps a rotated-out refresh token usable for ttl.reuse (60 s, kept: the library's
 *   window for a client's retry) and, with retention at its default 0, forgets it then, so a replay after the window
 *   is never detected. With retention set, a replay after the window revokes the subject's refresh tokens.
 * - Array.fromAsync: that revocation (the issuer's invalidate()) calls Array.fromAsync, which Node 20 lacks (Node 22
 *   has it): the polyfill below, or every detected replay ends in HTTP 500 instead.
 * - success(): the subject `user` with the e-mail address as its id, as the README's example does.
 * - The test user is registered at start through the provider's own sign-up routes (GET /authorize, then
 *   /password/register: register, then verify with the code), in process through app.request before the port opens;
 *   sendCode, which a deployer wires to e-mail, hands the code to that registration. Its password comes from the
 *   environment (INTEROP_USER_PASSWORD) and is never printed.
 */
import { serve } from '@hono/node-server';
import { issuer } from '@openauthjs/openauth';
import { PasswordProvider } from '@openauthjs/openauth/provider/password';
import { MemoryStorage } from '@openauthjs/openauth/storage/memory';
import { createSubjects } from '@openauthjs/openauth/subject';
import { PasswordUI } from '@openauthjs/openauth/ui/password';

if (typeof Array.fromAsync !== 'function') {
  /** Array.fromAsync (ES2024) for Node 20: the items of an async (or sync) iterable, awaited in order. */
  Array.fromAsync = async function fromAsync(items, map) {
    const out = [];
    for await (const item of items) out.push(map ? await map(item, out.length) : item);
    return out;
  };
}

const port = Number(process.env.INTEROP_PORT);
const email = process.env.INTEROP_USER_EMAIL ?? '';
const password = process.env.INTEROP_USER_PASSWORD ?? '';
/** @type {{ clientID: string; redirectURI: string }[]} */
const clients = JSON.parse(process.env.INTEROP_CLIENTS ?? '[]');
if (!port || !email || !password || !clients.length) {
  console.error('server.mjs: INTEROP_PORT, INTEROP_USER_EMAIL, INTEROP_USER_PASSWORD and INTEROP_CLIENTS are needed');
  process.exit(2);
}

/** A StandardSchema (v1) for the subject's properties: an object with a string id (what valibot would check). */
const userSchema = {
  '~standard': {
    version: 1,
    vendor: 'interop',
    validate: (value) =>
      value && typeof value === 'object' && typeof value.id === 'string'
        ? { value }
        : { issues: [{ message: 'id: a string' }] },
  },
};
const subjects = createSubjects({ user: userSchema });

/** The codes sendCode was given, by e-mail address: the registration below reads its own. */
const mailbox = new Map();

const app = issuer({
  subjects,
  storage: MemoryStorage(),
  providers: {
    password: PasswordProvider(
      PasswordUI({
        sendCode: async (to, code) => {
          mailbox.set(to, code);
        },
      }),
    ),
  },
  ttl: { retention: 24 * 60 * 60 },
  allow: async ({ clientID, redirectURI }) =>
    clients.some((c) => c.clientID === clientID && c.redirectURI === redirectURI),
  success: async (ctx, value) => {
    if (value.provider === 'password') return ctx.subject('user', { id: value.email });
    throw new Error(`unknown provider ${value.provider}`);
  },
});

/** One browser for the sign-up: its cookies, carried from answer to request (app.request, no network). */
const jar = new Map();
async function visit(path, form) {
  const headers = { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') };
  const init = form
    ? {
        method: 'POST',
        body: new URLSearchParams(form),
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      }
    : { headers };
  const res = await app.request(path, init);
  for (const cookie of res.headers.getSetCookie()) {
    const [pair] = cookie.split(';');
    const at = pair.indexOf('=');
    jar.set(pair.slice(0, at), pair.slice(at + 1));
  }
  return res;
}

const first = clients[0];
const start = new URLSearchParams({
  client_id: first.clientID,
  redirect_uri: first.redirectURI,
  response_type: 'code',
  state: 'sign-up',
});
await visit(`/authorize?${start}`);
await visit('/password/register');
await visit('/password/register', { action: 'register', email, password, repeat: password });
const code = mailbox.get(email.toLowerCase());
if (!code) throw new Error('sign-up: sendCode was not called (the register step was refused)');
const verified = await visit('/password/register', { action: 'verify', code });
const back = verified.headers.get('location') ?? '';
if (verified.status !== 302 || !new URL(back).searchParams.get('code')) {
  throw new Error(`sign-up: verify answered ${verified.status} ${back.split('?')[0]} instead of a code`);
}

serve({ fetch: app.fetch, hostname: '127.0.0.1', port }, (info) => {
  console.log(`OpenAuth 0.4.3 at http://127.0.0.1:${info.port} (user registered)`);
});

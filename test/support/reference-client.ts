/**
 * A small OAuth client for tests of the reference server: it drives the authorization endpoint
 * through the login and consent pages (cookie and form handling included), calls the token
 * endpoint, and reads the results. Everything goes over a real listening socket.
 */
import { createHash, randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import {
  createReferenceServer,
  SEEDED_CLIENTS,
  SEEDED_USER,
  type ClientConfig,
  type ReferenceOptions,
  type ReferenceServer,
} from '../../reference/index.ts';
import { formValues, readPage } from '../../harness/login/html.ts';

export const WEB = SEEDED_CLIENTS.confidential;
export const PARTNER = SEEDED_CLIENTS.confidential2;
export const SPA = SEEDED_CLIENTS.public;
export const MACHINE = SEEDED_CLIENTS.machine;

export const newVerifier = () => randomBytes(32).toString('base64url');
export const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

export interface TokenResult {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or `{ text }` when the body is not JSON. */
  body: Record<string, unknown>;
}

/** Where an authorization request ended: the redirect to the client, or a page shown instead. */
export interface AuthorizationResult {
  /** The redirect to the client's redirect_uri, when there was one. */
  callback?: URL;
  /** Response parameters of the callback: from the query, or from the fragment for implicit. */
  params: URLSearchParams;
  /** Status and headers of the last IdP page shown (login, consent or error). */
  page?: { status: number; headers: Headers; html: string };
  /** Whether a consent page was shown. */
  consentShown: boolean;
  /** A form_post response (a page whose form targets the redirect_uri): the form's method and its fields. */
  formPost?: { method: 'GET' | 'POST'; fields: URLSearchParams };
}

export interface AuthorizeInput {
  client: ClientConfig;
  /** The query of GET /auth; client_id and redirect_uri default to the client's. */
  query?: Record<string, string | undefined>;
  username?: string;
  password?: string;
  decision?: 'approve' | 'deny';
}

/**
 * Starts a reference server on a free local port. The flaw and flow tests use ES256 keys by
 * default: an RSA key takes ~0.3 s to generate, and the algorithm plays no part in those tests
 * (test/reference/keys.test.ts covers every algorithm, RS256 included).
 */
export async function startReference(options: ReferenceOptions = {}): Promise<ReferenceClient> {
  const server = createReferenceServer({ signingAlg: 'ES256', ...options });
  const { issuer } = await server.listen(0, '127.0.0.1');
  return new ReferenceClient(server, issuer);
}

export class ReferenceClient {
  constructor(
    readonly server: ReferenceServer,
    readonly issuer: string,
  ) {}

  close(): Promise<void> {
    return this.server.close();
  }

  get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(this.#url(path), { headers, redirect: 'manual' });
  }

  async json(path: string): Promise<Record<string, unknown>> {
    return (await (await this.get(path)).json()) as Record<string, unknown>;
  }

  /** POST /token. */
  async token(params: Record<string, string | undefined>, opts: TokenRequestOptions = {}): Promise<TokenResult> {
    const response = await fetch(this.#url('/token'), { method: 'POST', ...tokenRequest(params, opts) });
    const text = await response.text();
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      parsed = { text };
    }
    return { status: response.status, headers: response.headers, body: parsed };
  }

  /**
   * The same token request N times at once, for races: N connections are opened first, then
   * every request is written in one go, so the server reads them all before it answers any.
   * Resolves to the response statuses.
   */
  async tokenRace(
    n: number,
    params: Record<string, string | undefined>,
    opts: TokenRequestOptions = {},
  ): Promise<number[]> {
    const { headers, body } = tokenRequest(params, opts);
    const url = new URL(this.#url('/token'));
    const head = Object.entries({
      ...headers,
      host: url.host,
      'content-length': String(Buffer.byteLength(body)),
      connection: 'close',
    })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    const request = `POST ${url.pathname} HTTP/1.1\r\n${head}\r\n${body}`;
    const sockets = await Promise.all(
      Array.from(
        { length: n },
        () =>
          new Promise<Socket>((resolve, reject) => {
            const socket = connect(Number(url.port), url.hostname, () => resolve(socket)).once('error', reject);
          }),
      ),
    );
    const responses = sockets.map(
      (socket) =>
        new Promise<number>((resolve, reject) => {
          const chunks: Buffer[] = [];
          socket.on('data', (chunk: Buffer) => chunks.push(chunk)).once('error', reject);
          socket.once('end', () =>
            resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(Buffer.concat(chunks).toString())?.[1] ?? 0)),
          );
        }),
    );
    for (const socket of sockets) socket.write(request);
    return Promise.all(responses);
  }

  /** GET /auth, then login and (when asked) consent, following the IdP's own redirects. */
  async authorize(input: AuthorizeInput): Promise<AuthorizationResult> {
    const query: Record<string, string> = {};
    const given = { client_id: input.client.clientId, redirect_uri: input.client.redirectUris[0], ...input.query };
    for (const [name, value] of Object.entries(given)) if (value !== undefined) query[name] = value;
    let response = await this.get(`/auth?${new URLSearchParams(query)}`);
    let consentShown = false;
    let cookie = '';
    for (let step = 0; step < 5; step++) {
      cookie = /idpc_interaction=[^;]+/.exec(response.headers.get('set-cookie') ?? '')?.[0] ?? cookie;
      const location = response.headers.get('location');
      if (location !== null) {
        const url = new URL(location, this.issuer);
        if (!url.href.startsWith(this.issuer)) return { callback: url, params: responseParams(url), consentShown };
        response = await this.get(url.href, { cookie });
        continue;
      }
      const html = await response.text();
      const page = { status: response.status, headers: response.headers, html };
      const posted = this.#formPost(page, consentShown);
      if (posted) return posted;
      const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
      if (action === undefined) return { page, params: new URLSearchParams(), consentShown };
      const form: Record<string, string> = action.endsWith('/consent')
        ? { decision: input.decision ?? 'approve' }
        : { username: input.username ?? SEEDED_USER.username, password: input.password ?? SEEDED_USER.password };
      consentShown ||= action.endsWith('/consent');
      response = await fetch(action, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
        redirect: 'manual',
      });
      if (response.status === 200 && action.endsWith('/login')) {
        const page = { status: 200, headers: response.headers, html: await response.text() };
        return this.#formPost(page, consentShown) ?? { page, params: new URLSearchParams(), consentShown };
      }
    }
    throw new Error('the authorization request did not end in a redirect to the client');
  }

  /** A form_post page (a form whose action is off the IdP: the redirect_uri), read with the form driver's parser. */
  #formPost(page: NonNullable<AuthorizationResult['page']>, consentShown: boolean): AuthorizationResult | undefined {
    const model = readPage(page.html, this.issuer, page.status);
    const post = model.forms.findIndex((f) => f.action !== undefined && !f.action.startsWith(this.issuer));
    if (post < 0) return undefined;
    const callback = new URL(model.forms[post]!.action!);
    const fields = new URLSearchParams(formValues(model, post));
    const params = new URLSearchParams([...callback.searchParams, ...fields]);
    return { page, callback, params, consentShown, formPost: { method: model.forms[post]!.method, fields } };
  }

  /**
   * The code flow up to the code: scope "openid offline_access" and a fresh S256 challenge unless
   * the query says otherwise (`code_challenge: undefined` sends none).
   */
  async authorizeCode(
    client: ClientConfig,
    query: Record<string, string | undefined> = {},
  ): Promise<{ code: string; verifier?: string; result: AuthorizationResult }> {
    // The query may replace the challenge (or send none); then no verifier belongs to it.
    const ownChallenge = !('code_challenge' in query);
    const verifier = newVerifier();
    const result = await this.authorize({
      client,
      query: {
        response_type: 'code',
        scope: 'openid offline_access',
        code_challenge: s256(verifier),
        code_challenge_method: 'S256',
        ...query,
      },
    });
    const code = result.params.get('code');
    if (code === null) throw new Error(`no code: ${result.callback?.href ?? result.page?.html.slice(0, 400)}`);
    return { code, result, ...(ownChallenge ? { verifier } : {}) };
  }

  /** Redeems a code: with the client's own redirect_uri and the given verifier by default. */
  redeem(code: string, client: ClientConfig, extra: Record<string, string | undefined> = {}): Promise<TokenResult> {
    return this.token(
      { grant_type: 'authorization_code', code, redirect_uri: client.redirectUris[0], ...extra },
      { client },
    );
  }

  /** A code flow to the tokens; fails the test when any step does not succeed. */
  async tokensFor(
    client: ClientConfig,
    query: Record<string, string | undefined> = {},
  ): Promise<Record<string, unknown>> {
    const { code, verifier } = await this.authorizeCode(client, query);
    const redeemed = await this.redeem(code, client, { code_verifier: verifier });
    if (redeemed.status !== 200) throw new Error(`code redemption failed: ${JSON.stringify(redeemed.body)}`);
    return redeemed.body;
  }

  refresh(refreshToken: string, client: ClientConfig, extra: Record<string, string> = {}): Promise<TokenResult> {
    return this.token({ grant_type: 'refresh_token', refresh_token: refreshToken, ...extra }, { client });
  }

  #url(path: string): string {
    return path.startsWith('http') ? path : `${this.issuer}${path}`;
  }
}

export interface TokenRequestOptions {
  /** Authenticates with client_secret_basic (confidential) or sends client_id (public). */
  client?: ClientConfig;
  /** Overrides the client's own secret. */
  secret?: string;
  /** A JSON body instead of a form. */
  json?: boolean;
}

function tokenRequest(
  params: Record<string, string | undefined>,
  opts: TokenRequestOptions,
): { headers: Record<string, string>; body: string } {
  const headers: Record<string, string> = {};
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(params)) if (value !== undefined) fields[name] = value;
  const secret = opts.secret ?? opts.client?.clientSecret;
  if (opts.client && secret !== undefined) {
    const encode = (s: string) => encodeURIComponent(s);
    headers.authorization = `Basic ${Buffer.from(`${encode(opts.client.clientId)}:` + `${encode(secret)}`).toString(
      'base64',
    )}`;
  } else if (opts.client) {
    fields.client_id = opts.client.clientId;
  }
  headers['content-type'] = opts.json ? 'application/json' : 'application/x-www-form-urlencoded';
  return { headers, body: opts.json ? JSON.stringify(fields) : new URLSearchParams(fields).toString() };
}

function responseParams(url: URL): URLSearchParams {
  return url.hash.length > 1 ? new URLSearchParams(url.hash.slice(1)) : url.searchParams;
}

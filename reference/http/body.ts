/**
 * Request parameters from a query string, a form body or a JSON body: size-limited, UTF-8 only,
 * each parameter a single string. A repeated parameter is invalid_request (RFC 6749 §3.1, §3.2:
 * "Request and response parameters MUST NOT be included more than once"), and parameters sent
 * without a value are treated as omitted (RFC 6749 §3.1).
 */
import { isUtf8 } from 'node:buffer';
import type { Context } from 'koa';
import { invalidRequest } from '../oauth-error.ts';

/** Request parameters: one string per name, no prototype. */
export type Params = Readonly<Record<string, string>>;

export const BODY_LIMIT_BYTES = 64 * 1024;

export type BodyEncoding = 'form' | 'json';

/**
 * What a repeated parameter gets: refused (invalid_request, RFC 6749 §3.1), or, for the planted flaws that accept one
 * (authorize-duplicate-params-accepted, par-duplicate-params-accepted), its first value kept and the others dropped.
 */
export type Repeated = 'refused' | 'first-wins';

/** Turns name/value pairs into Params, refusing repeated names. */
export function paramsFromPairs(pairs: Iterable<[string, string]>, repeated: Repeated = 'refused'): Params {
  const params: Record<string, string> = Object.create(null);
  const seen = new Set<string>();
  for (const [name, value] of pairs) {
    if (seen.has(name)) {
      if (repeated === 'first-wins') continue;
      throw invalidRequest(`parameter '${truncate(name)}' is included more than once`);
    }
    seen.add(name);
    if (value !== '') params[name] = value;
  }
  return params;
}

/**
 * The parameters of an authorization request (RFC 6749 §3.1: each once) and its `resource` values, the one parameter
 * that may be repeated (RFC 8707 §2.1).
 */
export function paramsAndResources(
  pairs: Iterable<[string, string]>,
  repeated: Repeated = 'refused',
): { params: Params; resources: string[] } {
  const all = [...pairs];
  return {
    params: paramsFromPairs(
      all.filter(([name]) => name !== 'resource'),
      repeated,
    ),
    resources: all.filter(([name]) => name === 'resource').map(([, value]) => value),
  };
}

export function parseQuery(querystring: string): Params {
  return paramsFromPairs(new URLSearchParams(querystring));
}

/**
 * Reads and parses the body of a POST. `accept` lists the encodings this endpoint takes
 * (the token endpoint: form and JSON; the login and consent forms: form only).
 */
export async function parseBody(ctx: Context, accept: readonly BodyEncoding[]): Promise<Params> {
  const encoding = encodingOf(ctx.get('content-type'));
  if (!encoding || !accept.includes(encoding)) {
    const names = accept.map((e) => (e === 'form' ? 'application/x-www-form-urlencoded' : 'application/json'));
    throw invalidRequest(`the request body must be ${names.join(' or ')}`);
  }
  const text = await readText(ctx);
  return encoding === 'form' ? paramsFromPairs(new URLSearchParams(text)) : parseJsonParams(text);
}

/**
 * A form body as its name/value pairs, repeated names kept (the one parameter that may repeat, RFC 8707's resource, is
 * taken out by the caller; the rest go through paramsFromPairs), with the same size and UTF-8 limits.
 */
export async function parseFormPairs(ctx: Context): Promise<URLSearchParams> {
  if (encodingOf(ctx.get('content-type')) !== 'form')
    throw invalidRequest('the request body must be application/x-www-form-urlencoded');
  return new URLSearchParams(await readText(ctx));
}

/**
 * A JSON body of any shape (RFC 7591 §3.1: the client metadata of a registration request), with
 * the same size and UTF-8 limits; a body that is not JSON is refused with `invalid(description)`.
 */
export async function parseJsonBody(ctx: Context, invalid: (description: string) => Error): Promise<unknown> {
  if (encodingOf(ctx.get('content-type')) !== 'json') throw invalid('the request body must be application/json');
  const text = await readText(ctx);
  try {
    const body: unknown = JSON.parse(text);
    return body;
  } catch {
    throw invalid('the request body is not valid JSON');
  }
}

function encodingOf(contentType: string): BodyEncoding | undefined {
  // The common case, without splitting (the token endpoint's hot path).
  if (contentType === 'application/x-www-form-urlencoded') return 'form';
  const [mediaType = '', ...rest] = contentType.split(';').map((part) => part.trim().toLowerCase());
  const charset = rest
    .find((p) => p.startsWith('charset='))
    ?.slice('charset='.length)
    .replace(/"/g, '');
  if (charset && charset !== 'utf-8' && charset !== 'utf8') return undefined;
  if (mediaType === 'application/x-www-form-urlencoded') return 'form';
  if (mediaType === 'application/json') return 'json';
  return undefined;
}

const STRING_LITERAL = /"(?:[^"\\]|\\.)*"/g;

/** A JSON body must be one flat object whose values are all strings, with no repeated key. */
function parseJsonParams(text: string): Params {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidRequest('the request body is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalidRequest('the JSON request body must be an object');
  }
  const entries = Object.entries(parsed).map(([name, value]): [string, string] => {
    if (typeof value !== 'string') throw invalidRequest(`parameter '${truncate(name)}' must be a string`);
    return [name, value];
  });
  // JSON.parse keeps the last of repeated keys. In a valid flat object of strings the string
  // literals alternate key, value, so counting them reveals a repeated key.
  const literals = text.match(STRING_LITERAL) ?? [];
  if (literals.length !== entries.length * 2) {
    const keys = literals.filter((_, i) => i % 2 === 0).map((k) => String(JSON.parse(k)));
    const repeated = keys.find((k, i) => keys.indexOf(k) !== i) ?? '';
    throw invalidRequest(`parameter '${truncate(repeated)}' is included more than once`);
  }
  return paramsFromPairs(entries);
}

/** Reads the raw body as UTF-8, refusing more than BODY_LIMIT_BYTES. */
async function readText(ctx: Context): Promise<string> {
  const declared = Number(ctx.get('content-length') || '0');
  if (declared > BODY_LIMIT_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  await new Promise<void>((resolve, reject) => {
    const req = ctx.req;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT_BYTES) {
        cleanup();
        // The rest is drained and discarded by node after the response is sent.
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve();
    };
    const onError = () => {
      cleanup();
      reject(invalidRequest('the request body could not be read'));
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
  // One chunk (a small body) is used as it is; a decoder per request is not needed to refuse what is not UTF-8.
  const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
  if (!isUtf8(body)) throw invalidRequest('the request body is not valid UTF-8');
  const text = body.toString('utf8');
  // A leading byte order mark is dropped, as the UTF-8 decoder of the Encoding Standard does.
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

const tooLarge = () => invalidRequest(`the request body exceeds ${BODY_LIMIT_BYTES} bytes`);

const truncate = (s: string) => (s.length > 40 ? `${s.slice(0, 40)}…` : s);

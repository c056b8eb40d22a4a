/**
 * The WWW-Authenticate header read as RFC 9110 §11.6.1 writes it: a list of challenges, each an auth-scheme followed
 * by a token68 or by comma-separated auth-params (`name=token` or `name="quoted-string"`). Commas separate both the
 * challenges and the params of one challenge, so a new challenge starts where a bare token follows a comma. Bounded:
 * a header longer than MAX_HEADER_CHARS, or with more than MAX_CHALLENGES challenges or MAX_PARAMS params in one, is
 * read no further (`truncated`). Nothing here throws on what a server sends.
 */

/** One challenge: its scheme as sent, its params by lower-cased name (the first of a repeated name kept). */
export interface Challenge {
  scheme: string;
  params: Record<string, string>;
  token68?: string;
}

export interface ParsedChallenges {
  challenges: Challenge[];
  /** A part that is not of the grammar, or over the bounds, stopped the reading there. */
  truncated: boolean;
}

export const MAX_HEADER_CHARS = 8192;
export const MAX_CHALLENGES = 16;
export const MAX_PARAMS = 32;

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/;
const OWS = /^[ \t]*/;

/** Every challenge of a WWW-Authenticate value (several headers joined by ", " read as one list). */
export function parseWwwAuthenticate(header: string | undefined): ParsedChallenges {
  const challenges: Challenge[] = [];
  if (header === undefined) return { challenges, truncated: false };
  let rest = header.length > MAX_HEADER_CHARS ? header.slice(0, MAX_HEADER_CHARS) : header;
  let truncated = header.length > MAX_HEADER_CHARS;
  const skip = (re: RegExp) => {
    const m = re.exec(rest);
    if (m) rest = rest.slice(m[0].length);
    return m?.[0];
  };
  const skipCommas = () => {
    for (;;) {
      skip(OWS);
      if (!rest.startsWith(',')) return;
      rest = rest.slice(1);
    }
  };
  skipCommas();
  while (rest.length > 0) {
    if (challenges.length >= MAX_CHALLENGES) return { challenges, truncated: true };
    const scheme = skip(TOKEN);
    if (!scheme) return { challenges, truncated: true };
    const challenge: Challenge = { scheme, params: {} };
    challenges.push(challenge);
    const spaced = skip(/^[ \t]+/) !== undefined;
    if (!spaced || rest.startsWith(',') || rest.length === 0) {
      skipCommas();
      continue;
    }
    const param = readParams(rest, challenge);
    rest = param.rest;
    if (param.bad) return { challenges, truncated: true };
    truncated ||= param.overLimit;
    if (param.overLimit) return { challenges, truncated };
    skipCommas();
  }
  return { challenges, truncated };
}

/** The auth-params (or the token68) of one challenge, up to where the next challenge starts. */
function readParams(input: string, challenge: Challenge): { rest: string; bad: boolean; overLimit: boolean } {
  let rest = input;
  const t68 = /^([A-Za-z0-9._~+/-]+=*)[ \t]*(?=,|$)/.exec(rest);
  if (t68 && !PARAM_START.test(rest)) {
    challenge.token68 = t68[1];
    return { rest: rest.slice(t68[0].length), bad: false, overLimit: false };
  }
  for (let count = 0; ; count++) {
    if (count >= MAX_PARAMS) return { rest, bad: false, overLimit: true };
    const name = TOKEN.exec(rest)?.[0];
    const eq = name === undefined ? null : /^[ \t]*=[ \t]*/.exec(rest.slice(name.length));
    if (name === undefined || !eq) return { rest, bad: true, overLimit: false };
    rest = rest.slice(name.length + eq[0].length);
    let value: string | undefined;
    if (rest.startsWith('"')) {
      const quoted = readQuoted(rest);
      if (!quoted) return { rest, bad: true, overLimit: false };
      value = quoted.value;
      rest = quoted.rest;
    } else {
      value = TOKEN.exec(rest)?.[0];
      if (value === undefined) return { rest, bad: true, overLimit: false };
      rest = rest.slice(value.length);
    }
    const key = name.toLowerCase();
    if (!Object.hasOwn(challenge.params, key)) challenge.params[key] = value;
    rest = rest.replace(OWS, '');
    if (rest.length === 0) return { rest, bad: false, overLimit: false };
    if (!rest.startsWith(',')) return { rest, bad: true, overLimit: false };
    // After the comma: another param of this challenge (`name=value`), or the next challenge's scheme.
    const next = rest.replace(/^[ \t,]*/, '');
    if (!PARAM_START.test(next)) return { rest, bad: false, overLimit: false };
    rest = next;
  }
}

/** `name=` followed by a value (a token or a quoted-string): an auth-param, not a token68 nor a scheme. */
const PARAM_START = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+[ \t]*=[ \t]*[^=\s,]/;

/** A quoted-string (RFC 9110 §5.6.4) with its backslash escapes undone, or undefined when it never closes. */
function readQuoted(s: string): { value: string; rest: string } | undefined {
  let value = '';
  for (let i = 1; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\') {
      if (i + 1 >= s.length) return undefined;
      value += s[++i];
    } else if (c === '"') return { value, rest: s.slice(i + 1) };
    else value += c;
  }
  return undefined;
}

/** The first challenge of `scheme` (compared case-insensitively, RFC 9110 §11.1), or undefined. */
export function challengeOf(parsed: ParsedChallenges, scheme: string): Challenge | undefined {
  return parsed.challenges.find((c) => c.scheme.toLowerCase() === scheme.toLowerCase());
}

/** A parameter of the Bearer challenge (RFC 6750 §3), e.g. resource_metadata (RFC 9728 §5.1); undefined without one. */
export function bearerParam(header: string | undefined, name: string): string | undefined {
  return challengeOf(parseWwwAuthenticate(header), 'Bearer')?.params[name.toLowerCase()];
}

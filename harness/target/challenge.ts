/**
 * WWW-Authenticate, read as RFC 9110 §11.6.1 defines it: challenges, each an auth-scheme with either a token68 or
 * comma-separated auth-params (`name = token / quoted-string`), the header possibly holding several challenges. The
 * header comes from an untrusted server: it is read only up to MAX_HEADER_LENGTH characters and MAX_PARAMS parameters,
 * and anything that does not parse ends the reading (the challenges read so far are kept).
 */

/** What of a header is read. */
export const MAX_HEADER_LENGTH = 8192;
/** Parameters kept across all challenges. */
export const MAX_PARAMS = 64;

export interface Challenge {
  /** The auth-scheme, lower-cased (schemes are case-insensitive, RFC 9110 §11.1). */
  scheme: string;
  /** The auth-params by lower-cased name; the first of a repeated name wins (RFC 9110 §11.2 forbids repeats). */
  params: Record<string, string>;
  /** A token68 in place of params. */
  token68?: string;
  /** Parameter names given more than once. */
  repeated?: string[];
}

const TCHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;

/** The challenges of a WWW-Authenticate value (several header lines joined with ", " as fetch does). */
export function parseChallenges(header: string): Challenge[] {
  const s = header.slice(0, MAX_HEADER_LENGTH);
  const out: Challenge[] = [];
  let i = 0;
  let params = 0;
  const ws = () => {
    while (i < s.length && (s[i] === ' ' || s[i] === '\t')) i++;
  };
  const token = () => {
    const start = i;
    while (i < s.length && TCHAR.test(s[i]!)) i++;
    return s.slice(start, i);
  };
  const quoted = (): string | undefined => {
    if (s[i] !== '"') return undefined;
    i++;
    let value = '';
    while (i < s.length && s[i] !== '"') {
      if (s[i] === '\\' && i + 1 < s.length) i++;
      value += s[i];
      i++;
    }
    if (s[i] !== '"') return undefined;
    i++;
    return value;
  };
  while (i < s.length) {
    // Empty list elements (RFC 9110 §5.6.1) between challenges.
    while (i < s.length && (s[i] === ',' || s[i] === ' ' || s[i] === '\t')) i++;
    if (i >= s.length) break;
    const scheme = token();
    if (!scheme) break;
    const challenge: Challenge = { scheme: scheme.toLowerCase(), params: {} };
    out.push(challenge);
    ws();
    // A token68: the rest up to a comma, when it is not the start of a name=value.
    const rest = s.slice(i);
    const t68 = /^([^\s,]+)\s*(,|$)/.exec(rest);
    if (t68 && TOKEN68.test(t68[1]!) && !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+\s*=[^=]/.test(rest)) {
      challenge.token68 = t68[1]!;
      i += t68[0].length;
      continue;
    }
    // auth-params: name BWS "=" BWS ( token / quoted-string ), comma-separated, until the next challenge's scheme.
    for (;;) {
      ws();
      const mark = i;
      const name = token();
      ws();
      if (!name || s[i] !== '=') {
        i = mark;
        break;
      }
      i++;
      ws();
      const value = s[i] === '"' ? quoted() : token();
      if (value === undefined) return out;
      const key = name.toLowerCase();
      if (key in challenge.params) challenge.repeated = [...(challenge.repeated ?? []), key];
      else if (params < MAX_PARAMS) {
        params++;
        challenge.params[key] = value;
      }
      ws();
      if (s[i] !== ',') break;
      i++;
      // After a comma: another param, or (a token then space or end, not "=") the next challenge.
      ws();
      const after = s.slice(i);
      if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+\s*=/.test(after)) break;
    }
    ws();
    if (i < s.length && s[i] !== ',' && !TCHAR.test(s[i]!)) break;
  }
  return out;
}

/** The first Bearer challenge's parameter `name`, if any. */
export function bearerParam(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  return parseChallenges(header).find((c) => c.scheme === 'bearer')?.params[name.toLowerCase()];
}

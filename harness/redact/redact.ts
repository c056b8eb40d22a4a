import type { BuiltParts, BuiltSink } from './built.ts';
import {
  JWS_SHAPE,
  MAX_BUILT_NESTING,
  decodableJwt,
  encodedForms,
  JWT_IN_TEXT,
  MAX_JWT_CHARS,
  MAX_JWT_NESTING,
  MAX_BUILT,
  MAX_JWTS_PER_TEXT,
  MIN_SIGNATURE_LENGTH,
  SIGNATURE_PROBE,
  decodeSegment,
  formEncode,
  htmlEscape,
  rollHash,
  windowHash,
} from './encodings.ts';
import { MAX_LEARNED_PER_MESSAGE, MIN_SECRET_LENGTH, SECRET_FIELDS, isLabel, requestValues } from './fields.ts';
import { type NameRedactor, redactBody, redactJson, redactUrl } from './by-name.ts';
import { observeBasicSecret, observeFields, observeResponse } from './observe.ts';
import { redactEvidence, redactHeaders, redactHttp, redactOutage, redactResult } from './report.ts';
import type { Evidence, HttpEvidence, Outage, ScenarioResult } from '../model/results.ts';

/** Which part of a built structure a form shows: all of it, its payload segment, either encoded once more. */
type BuiltPart = 'whole' | 'payload' | 'encoded';

export class Redactor implements BuiltSink, NameRedactor {
  /** Every redacted-by-value variant (raw, URL-, form-, JSON-, HTML-encoded) → its label. */
  readonly #labels = new Map<string, string>();
  /** The variants by a hash of their first MIN_SECRET_LENGTH characters, longest first: the linear scan's index. */
  readonly #byPrefix = new Map<number, string[]>();
  /** Labels of values redacted by field name only (too short, or sent by the harness): never replaced in free text. */
  readonly #fieldLabels = new Map<string, string>();
  readonly #counts = new Map<string, number>();
  /** Configured secrets too short to find in free text: masked wherever one is a whole form field or JSON value. */
  readonly #short = new Set<string>();
  /** While observing one response: values the request carried (an echo is not learned) and the learning budget. */
  #echo: ReadonlySet<string> = new Set();
  #budget = Infinity;
  /**
   * The signatures of learned JWTs by length and first (or last) SIGNATURE_PROBE characters → their label: a forged
   * copy whose signature differs in a bit or two still shares one end.
   */
  readonly #signatures = new Map<string, string>();
  /** The structures the harness built (built.ts) → their decoded header and payload, as encoded. */
  readonly #built = new Map<string, BuiltParts>();
  /**
   * Each form a built structure may take in text (whole, its payload segment in base64url or base64) → the
   * structure and which part it is; indexed by a hash of its last MIN_SECRET_LENGTH characters (#builtByTail).
   */
  readonly #builtForms = new Map<string, { structure: string; part: BuiltPart }>();
  readonly #builtByTail = new Map<number, string[]>();

  constructor(secrets: Iterable<string | { value: string; kind: string }> = []) {
    for (const s of secrets) {
      if (typeof s === 'string') this.add(s, 'secret');
      else this.add(s.value, s.kind);
    }
  }

  #newLabel(kind: string): string {
    const n = (this.#counts.get(kind) ?? 0) + 1;
    this.#counts.set(kind, n);
    return `[REDACTED:${kind}:${n}]`;
  }

  /**
   * Register a secret value, redacted wherever it appears from now on; `kind` names it in the label. Returns the label.
   */
  add(value: string, kind = 'secret'): string {
    if (isLabel(value)) return value;
    const known = this.#labels.get(value);
    if (known) return known;
    if (value.length < MIN_SECRET_LENGTH) {
      this.#short.add(value);
      return this.fieldLabel(value, kind);
    }
    const label = this.#fieldLabels.get(value) ?? this.#newLabel(kind);
    this.#fieldLabels.delete(value);
    this.#addSignature(value, kind);
    for (const variant of new Set([
      value,
      encodeURIComponent(value),
      formEncode(value),
      JSON.stringify(value).slice(1, -1),
      htmlEscape(value),
    ])) {
      if (this.#labels.has(variant)) continue;
      this.#labels.set(variant, label);
      const prefix = windowHash(variant, 0);
      const list = this.#byPrefix.get(prefix);
      if (!list) this.#byPrefix.set(prefix, [variant]);
      else {
        list.push(variant);
        list.sort((a, b) => b.length - a.length);
      }
    }
    return label;
  }

  /** A JWS's signature, masked wherever it appears: a forged copy that keeps it would give the token back. */
  #addSignature(value: string, kind: string): void {
    const m = JWS_SHAPE.exec(value);
    const signature = m?.[3];
    if (!signature || signature.length < MIN_SIGNATURE_LENGTH || kind.endsWith('-signature')) return;
    const label = this.add(signature, `${kind}-signature`);
    const len = signature.length;
    this.#signatures.set(`${len}<${signature.slice(0, SIGNATURE_PROBE)}`, label);
    this.#signatures.set(`${len}>${signature.slice(-SIGNATURE_PROBE)}`, label);
  }

  /** The label of the learned signature `signature` is, or nearly is (one end the same), or undefined. */
  #signatureLabel(signature: string): string | undefined {
    if (signature.length < MIN_SIGNATURE_LENGTH) return undefined;
    const len = signature.length;
    return (
      this.#labels.get(signature) ??
      this.#signatures.get(`${len}<${signature.slice(0, SIGNATURE_PROBE)}`) ??
      this.#signatures.get(`${len}>${signature.slice(-SIGNATURE_PROBE)}`)
    );
  }

  /**
   * Every JWT in `input` that carries a secret (in its header or payload, or as its signature) shown decoded with the
   * secrets masked; the others, and learned tokens (masked whole by value), as they are.
   */
  #jwts(input: string, depth: number): string {
    if (depth > MAX_JWT_NESTING || !input.includes('eyJ')) return input;
    let budget = MAX_JWTS_PER_TEXT;
    return input.replace(JWT_IN_TEXT, (jwt: string, h: string, p: string, sig: string) => {
      // A structure the harness built was shown by #builtIn already.
      if (this.#labels.has(jwt) || this.#built.has(jwt) || jwt.length > MAX_JWT_CHARS || budget-- <= 0) return jwt;
      const header = decodeSegment(h);
      const payload = decodeSegment(p);
      if (header === undefined || payload === undefined) return jwt;
      const maskedHeader = JSON.stringify(redactJson(this, header, depth + 1));
      const maskedPayload = JSON.stringify(redactJson(this, payload, depth + 1));
      const signatureLabel = this.#signatureLabel(sig);
      if (!signatureLabel && maskedHeader === JSON.stringify(header) && maskedPayload === JSON.stringify(payload))
        return jwt;
      const signature = signatureLabel ?? (sig ? `(${Buffer.from(sig, 'base64url').length} bytes, not shown)` : 'none');
      return `JWT(header ${maskedHeader}, payload ${maskedPayload}, signature ${signature})`;
    });
  }

  /**
   * A structure the harness built (built.ts), by what it means: every token inside it that the harness did not build
   * itself (a member named like a credential or a hint, any JWT it received) is learned now — however the target
   * answers later — and the structure is shown, wherever and however encoded it appears, decoded with those masked.
   */
  built(structure: string, parts: BuiltParts): void {
    if (this.#built.has(structure) || this.#labels.has(structure) || this.#built.size >= MAX_BUILT) return;
    this.#built.set(structure, parts);
    this.#tokensByMeaning(parts.header, '');
    this.#tokensByMeaning(parts.payload, '');
    // Found whole wherever it appears, and shown with what is secret in it then (a token learned later too).
    this.#indexBuilt(structure, structure, 'whole');
    // Nothing secret inside now (a DPoP proof, a client assertion): shown as it is; its other forms are not looked for.
    if (this.#renderBuilt(structure, 0) === structure) return;
    const payload = structure.split('.')[1] ?? '';
    this.#indexBuilt(payload, structure, 'payload');
    for (const form of encodedForms(Buffer.from(structure))) this.#indexBuilt(form, structure, 'encoded');
    for (const form of encodedForms(Buffer.from(payload, 'base64url'))) this.#indexBuilt(form, structure, 'encoded');
  }

  /** The tokens inside what the harness built: members named like a credential, JWTs it did not build. */
  #tokensByMeaning(value: unknown, name: string): void {
    if (typeof value === 'string') {
      if (isLabel(value) || this.#built.has(value)) return;
      if (SECRET_FIELDS.has(name)) this.add(value, name);
      else if (decodableJwt(value)) this.add(value, 'token');
      // A JWT inside a string (a claims request, a URL): a token too.
      else if (value.includes('eyJ'))
        for (const [jwt] of value.matchAll(JWT_IN_TEXT))
          if (!this.#built.has(jwt) && decodableJwt(jwt)) this.add(jwt, 'token');
    } else if (Array.isArray(value)) for (const v of value) this.#tokensByMeaning(v, name);
    else if (value && typeof value === 'object')
      for (const [k, v] of Object.entries(value)) this.#tokensByMeaning(v, k);
  }

  #indexBuilt(form: string, structure: string, part: BuiltPart): void {
    if (form.length < MIN_SECRET_LENGTH || this.#builtForms.has(form)) return;
    this.#builtForms.set(form, { structure, part });
    const tail = windowHash(form, form.length - MIN_SECRET_LENGTH);
    const list = this.#builtByTail.get(tail);
    if (list) list.push(form);
    else this.#builtByTail.set(tail, [form]);
  }

  /**
   * A built structure as a report shows it: as it is when nothing inside is secret, else decoded with the secrets
   * masked and without its signature (a payload segment alone: its claims, masked).
   */
  #renderBuilt(form: string, depth: number): string {
    const found = this.#builtForms.get(form);
    const parts = found && this.#built.get(found.structure);
    if (!found || !parts || depth > MAX_BUILT_NESTING) return form;
    const maskedPayload = JSON.stringify(redactJson(this, parts.payload, depth + 1));
    const payloadChanged = maskedPayload !== JSON.stringify(parts.payload);
    if (found.part === 'payload') return payloadChanged ? `JWT-payload(${maskedPayload})` : form;
    if (found.part === 'encoded') return `[encoded: ${this.#renderBuilt(found.structure, depth)}]`;
    const maskedHeader = JSON.stringify(redactJson(this, parts.header, depth + 1));
    const sig = found.structure.split('.')[2] ?? '';
    const signatureLabel = this.#signatureLabel(sig);
    if (!signatureLabel && !payloadChanged && maskedHeader === JSON.stringify(parts.header)) return form;
    const signature = signatureLabel ?? (sig ? `(${Buffer.from(sig, 'base64url').length} bytes, not shown)` : 'none');
    return `JWT(header ${maskedHeader}, payload ${maskedPayload}, signature ${signature})`;
  }

  /**
   * Every built structure in `input`, in any of its forms, whatever surrounds it, replaced by its rendering: one
   * left-to-right scan with a rolling hash of MIN_SECRET_LENGTH characters matched against the forms' last ones.
   */
  #builtIn(input: string, depth: number): string {
    if (this.#builtByTail.size === 0 || input.length < MIN_SECRET_LENGTH) return input;
    let out = '';
    let copied = 0;
    let h = windowHash(input, 0);
    for (let end = MIN_SECRET_LENGTH; end <= input.length; end++) {
      if (end > MIN_SECRET_LENGTH)
        h = rollHash(h, input.charCodeAt(end - MIN_SECRET_LENGTH - 1), input.charCodeAt(end - 1));
      const candidates = this.#builtByTail.get(h);
      if (!candidates) continue;
      let hit: string | undefined;
      for (const c of candidates) {
        const start = end - c.length;
        if (start < copied || (hit !== undefined && c.length <= hit.length) || !input.startsWith(c, start)) continue;
        // A payload segment inside its whole structure: the whole is shown when the scan reaches its end.
        const { structure, part } = this.#builtForms.get(c)!;
        const wholeStart = start - structure.indexOf('.') - 1;
        if (part === 'payload' && wholeStart >= copied && input.startsWith(structure, wholeStart)) continue;
        hit = c;
      }
      if (hit === undefined) continue;
      out += input.slice(copied, end - hit.length) + this.#renderBuilt(hit, depth);
      copied = end;
    }
    return copied === 0 ? input : out + input.slice(copied);
  }

  /** A label for a value found in a secret field but not learned (too short, or sent by the harness). */
  fieldLabel(value: string, kind: string): string {
    if (isLabel(value)) return value;
    const known = this.#labels.get(value) ?? this.#fieldLabels.get(value);
    if (known) return known;
    const label = this.#newLabel(kind);
    this.#fieldLabels.set(value, label);
    return label;
  }

  /**
   * Learn a value the target sent, within the budget of the response being observed and unless it echoes the request.
   */
  #learn(value: string, kind: string): void {
    if (value.length < MIN_SECRET_LENGTH || this.#labels.has(value) || this.#echo.has(value)) return;
    if (this.#budget <= 0) return;
    this.#budget--;
    this.add(value, kind);
  }

  /**
   * Learn the response parameters of an authorization response the harness caught (e.g. a redirect the browser never
   * loaded).
   */
  learnIssued(fields: Record<string, string>): void {
    observeFields(Object.entries(fields), (value, kind) => this.#learn(value, kind));
  }

  /**
   * Replace every known secret in a text: one left-to-right scan with a rolling hash of the next
   * MIN_SECRET_LENGTH characters (linear in the text, whatever the number and length of the
   * secrets), the longest secret at each position.
   */
  text(input: string, depth = 0): string {
    input = this.#builtIn(input, depth);
    if (this.#labels.size === 0 || input.length < MIN_SECRET_LENGTH) return input;
    input = this.#jwts(input, depth);
    let out = '';
    let copied = 0;
    let h = windowHash(input, 0);
    for (let i = 0; i + MIN_SECRET_LENGTH <= input.length; ) {
      const candidates = this.#byPrefix.get(h);
      const hit = candidates?.find((c) => input.startsWith(c, i));
      if (hit === undefined) {
        if (i + MIN_SECRET_LENGTH < input.length)
          h = rollHash(h, input.charCodeAt(i), input.charCodeAt(i + MIN_SECRET_LENGTH));
        i++;
        continue;
      }
      out += input.slice(copied, i) + this.#labels.get(hit)!;
      i += hit.length;
      copied = i;
      if (i + MIN_SECRET_LENGTH <= input.length) h = windowHash(input, i);
    }
    return copied === 0 ? input : out + input.slice(copied);
  }

  /**
   * Learn the secrets an exchange carries (before anything is redacted): the client secret of a
   * Basic header, and what the target sent — tokens and codes in the response body, Location and
   * Set-Cookie. Nothing else the harness sent is learned (its probes and forged tokens stay readable).
   */
  observe(e: HttpEvidence): void {
    observeBasicSecret(e.request.headers, (value, kind) => this.add(value, kind));
    if (!e.response) return;
    this.#echo = requestValues(e);
    this.#budget = MAX_LEARNED_PER_MESSAGE;
    try {
      observeResponse(e.response, e.request.url, (value, kind) => this.#learn(value, kind));
    } finally {
      this.#echo = new Set();
      this.#budget = Infinity;
    }
  }

  /** Redact one HTTP transcript: by field name, then by value. */
  http(e: HttpEvidence): HttpEvidence {
    return redactHttp(this, e);
  }

  headers(headers: Record<string, string>): Record<string, string> {
    return redactHeaders(this, headers);
  }

  url(url: string): string {
    return redactUrl(this, url);
  }

  body(body: string): string {
    return redactBody(this, body);
  }

  /** A value that is a configured secret too short to find in free text (masked as a whole field or value). */
  isShort(value: string): boolean {
    return this.#short.has(value);
  }

  /** A structure the harness built, given as a hint (a forged ID token), as a report shows it; else undefined. */
  builtHint(value: string, depth: number): string | undefined {
    return this.#built.has(value) ? this.#renderBuilt(value, depth) : undefined;
  }

  /** An outage with its target-supplied text redacted. */
  outage(o: Outage): Outage {
    return redactOutage(this, o);
  }

  evidence(e: Evidence): Evidence {
    return redactEvidence(this, e);
  }

  /** A result with its target-supplied text redacted, never the harness's own words (redact-report.ts). */
  result(r: ScenarioResult): ScenarioResult {
    return redactResult(this, r);
  }
}

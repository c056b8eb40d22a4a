/**
 * The redactor (redact.ts) applied to what a run reports: an HTTP transcript (URL, headers, bodies),
 * headers (credentials and cookies by name), an outage, a piece of evidence and a whole result, each
 * with only its target-supplied text redacted.
 */
import { SECRET_HEADERS } from './fields.ts';
import type { Evidence, HttpEvidence, Outage, ScenarioResult } from '../model/results.ts';

/** The redactor's text redaction, which these apply field by field. */
export interface TextRedactor {
  text(input: string): string;
  url(url: string): string;
  headers(headers: Record<string, string>): Record<string, string>;
  body(body: string): string;
}

/** Redact one HTTP transcript: by field name, then by value. */
export function redactHttp(r: TextRedactor, e: HttpEvidence): HttpEvidence {
  const out: HttpEvidence = {
    ...e,
    request: {
      ...e.request,
      url: r.url(e.request.url),
      headers: r.headers(e.request.headers),
      ...(e.request.body === undefined ? {} : { body: r.body(e.request.body) }),
    },
  };
  if (e.response) {
    out.response = {
      ...e.response,
      headers: r.headers(e.response.headers),
      ...(e.response.body === undefined ? {} : { body: r.body(e.response.body) }),
    };
  }
  if (e.error) out.error = r.text(e.error);
  if (e.label) out.label = r.text(e.label);
  return out;
}

/** Headers: credentials and cookies by name, Location as a URL, the rest by value. */
export function redactHeaders(r: TextRedactor, headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'location') out[name] = r.url(value);
    else if (!SECRET_HEADERS.has(lower)) out[name] = r.text(value);
    else if (lower === 'authorization' || lower === 'proxy-authorization') {
      const scheme = value.split(/\s+/)[0] ?? '';
      out[name] = `${scheme} [REDACTED:credentials]`;
    } else {
      out[name] = r
        .text(value)
        .replace(/(^|[;,]\s*)([^=;,\s]+)=([^;,]*)/g, (m, pre: string, key: string) =>
          /^(path|domain|expires|max-age|samesite|secure|httponly)$/i.test(key) ? m : `${pre}${key}=[REDACTED:cookie]`,
        );
    }
  }
  return out;
}

/** An outage's target-supplied text (the URL sent to, the transport's words) redacted. */
export function redactOutage(r: TextRedactor, o: Outage): Outage {
  return { ...o, lastSent: r.text(o.lastSent), cause: r.text(o.cause) };
}

/** One piece of evidence: its target-supplied text redacted. */
export function redactEvidence(r: TextRedactor, e: Evidence): Evidence {
  switch (e.kind) {
    case 'http':
      return redactHttp(r, e);
    case 'note':
      return { ...e, text: r.text(e.text), ...(e.label === undefined ? {} : { label: r.text(e.label) }) };
    case 'counterexample':
      return { ...e, value: r.text(e.value), ...(e.label === undefined ? {} : { label: r.text(e.label) }) };
    case 'screenshot':
      return e.label === undefined ? e : { ...e, label: r.text(e.label) };
  }
}

/**
 * A result with its target-supplied text redacted (idempotent): the message, the skip reason, findings, the log,
 * the pages of the login walks and the evidence. The harness's own words — id, title, area, status, severity,
 * level, requirements, counts — are never touched, whatever the target sent.
 */
export function redactResult(r: TextRedactor, result: ScenarioResult): ScenarioResult {
  return {
    ...result,
    ...(result.message === undefined ? {} : { message: r.text(result.message) }),
    ...(result.skipReason === undefined ? {} : { skipReason: r.text(result.skipReason) }),
    ...(result.findings ? { findings: result.findings.map((f) => ({ ...f, message: r.text(f.message) })) } : {}),
    ...(result.log ? { log: result.log.map((l) => r.text(l)) } : {}),
    ...(result.walks
      ? {
          walks: result.walks.map((w) =>
            w.switched
              ? {
                  ...w,
                  switched: {
                    ...w.switched,
                    url: r.url(w.switched.url),
                    page: r.text(w.switched.page),
                    reason: r.text(w.switched.reason),
                  },
                }
              : w,
          ),
        }
      : {}),
    evidence: result.evidence.map((e) => redactEvidence(r, e)),
  };
}

/**
 * A scenario's evidence (Recorder): every HTTP exchange passes through the redactor's `observe` with
 * its whole bodies before a long body is cut, notes and screenshots are added as they come, and the
 * exchange that decided a check (or that the scenario marked) is marked decisive.
 */
import type { Redactor } from '../redact/redact.ts';
import type { Evidence } from '../model/results.ts';

/** Characters of a body kept in the evidence (the whole body is read, and learned from, first). */
const MAX_BODY = 32_000;

/**
 * Collects a scenario's evidence. Every HTTP exchange passes through the redactor's `observe` with
 * its whole bodies; a body longer than the evidence keeps is redacted before it is cut, so a token
 * that straddles the cut is never shown in part.
 */
export class Recorder {
  readonly evidence: Evidence[] = [];
  constructor(readonly redactor: Redactor) {}
  add(e: Evidence): void {
    if (e.kind === 'http') {
      this.redactor.observe(e);
      const cut = (body: string) => truncate(this.redactor.body(body));
      if (e.request.body !== undefined && e.request.body.length > MAX_BODY) e.request.body = cut(e.request.body);
      if (e.response?.body !== undefined && e.response.body.length > MAX_BODY) e.response.body = cut(e.response.body);
    }
    this.evidence.push(e);
  }
  #explicit = false;
  /** Marks the last HTTP exchange as the one that decides the verdict (a scenario's own choice). */
  markDecisive(): void {
    this.#explicit = this.#markLast() || this.#explicit;
  }
  /**
   * A check failed: marks the last HTTP exchange as the one that decided it (see
   * HttpEvidence.decisive), unless the scenario marked one itself since the last failure.
   */
  markFailure(): void {
    const kept = this.#explicit && this.evidence.some((e) => e.kind === 'http' && e.decisive);
    this.#explicit = false;
    if (!kept) this.#markLast();
  }
  #markLast(): boolean {
    for (let i = this.evidence.length - 1; i >= 0; i--) {
      const e = this.evidence[i]!;
      if (e.kind === 'http') {
        e.decisive = true;
        return true;
      }
    }
    return false;
  }

  /** Learn the tokens of an authorization response the harness caught without a response to observe. */
  learnIssued(fields: Record<string, string>): void {
    this.redactor.learnIssued(fields);
  }
}

function truncate(text: string): string {
  return text.length > MAX_BODY ? `${text.slice(0, MAX_BODY)}\n… (${text.length - MAX_BODY} more characters)` : text;
}

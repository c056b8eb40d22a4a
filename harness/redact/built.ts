/**
 * What the harness builds, told to the redactor by meaning (docs/security.md, "Structures the harness builds"): every
 * JWS it signs or leaves unsigned (a request object, a client assertion, a DPoP proof) is handed, with its decoded
 * header and payload, to the redactor of the scenario that built it, so the report shows it with every token inside
 * masked — whatever the target later does with it, however large it is, however it is wrapped. The scenario's
 * redactor is found through an AsyncLocalStorage set around the scenario (time-limit.ts), so the builders stay pure
 * functions of their inputs.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** The decoded parts of a compact JWS the harness built, exactly as encoded. */
export interface BuiltParts {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
}

/** Who is told: the redactor (redact.ts). */
export interface BuiltSink {
  built(structure: string, parts: BuiltParts): void;
}

const sink = new AsyncLocalStorage<BuiltSink>();

/** Runs `f` with `to` told of every structure built within it (and in what it awaits). */
export function reportingBuilt<T>(to: BuiltSink, f: () => T): T {
  return sink.run(to, f);
}

/** A structure was built: the current scenario's redactor learns what it means. Outside a scenario, nothing. */
export function noteBuilt(structure: string, parts: BuiltParts): void {
  sink.getStore()?.built(structure, parts);
}

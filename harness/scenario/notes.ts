/**
 * What a scenario's evidence says besides its verdict: the capabilities it needed that discovery did
 * not advertise and what enabled them, and the token responses met on its way that deviate from
 * RFC 6749 §5.1 (said, never judged: token.response-format judges them).
 */
import { CLIENT_ROLES } from '../model/requirements.ts';
import type { Recorder } from '../http/recorder.ts';
import type { Scenario } from './scenario.ts';
import type { Target } from '../target/target.ts';
import { tokenResponseDeviations } from '../flows/token-set.ts';

/**
 * Token responses the scenario met on its way that deviate from RFC 6749 §5.1 (no token_type, no Cache-Control:
 * no-store, not JSON): said in its evidence, never judged (token.response-format judges them).
 */
export function noteTokenResponseDeviations(target: Target, recorder: Recorder): void {
  const token = target.endpoints.token;
  if (!token) return;
  const seen = new Set<string>();
  for (const e of [...recorder.evidence]) {
    if (e.kind !== 'http' || !e.response || e.response.status !== 200 || e.request.url.split('?')[0] !== token)
      continue;
    const headers = e.response.headers;
    let json: unknown;
    try {
      json = e.response.body === undefined ? undefined : JSON.parse(e.response.body);
    } catch {
      json = undefined;
    }
    if (!json || typeof json !== 'object' || !('access_token' in json)) continue;
    const found = tokenResponseDeviations({
      status: e.response.status,
      header: (name) => Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1],
      json,
    });
    const key = found.join('; ');
    if (!found.length || seen.has(key)) continue;
    seen.add(key);
    recorder.add({
      kind: 'note',
      label: 'token response',
      text:
        `On the way, a token response (${e.label ?? 'token request'}) deviated from RFC 6749 §5.1: ${key}. ` +
        'token.response-format judges that; this scenario judges only its own rule.',
    });
  }
}

/** A note for every required capability discovery did not advertise, saying what enabled it. */
export function noteImpliedCapabilities(s: Scenario, target: Target, recorder: Recorder): void {
  // The scenario's own roles first, then any client's: the capability probe tries every code-flow client.
  const roles = [...new Set([...(s.requires?.roles ?? []), ...CLIENT_ROLES])];
  for (const c of s.requires?.capabilities ?? []) {
    const via = target.capabilities.has(c)
      ? undefined
      : (target.implied.get(c) ?? roles.map((r) => target.observedHow(r, c)).find(Boolean));
    if (via)
      recorder.add({
        kind: 'note',
        label: 'capability',
        text: `${c} is not advertised by discovery; enabled by ${via}`,
      });
  }
}

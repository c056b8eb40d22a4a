/**
 * What the login driver tests build their drivers from: an HTTP client to the loopback fixtures, and the browser part
 * of a driver's options (one Chromium per test file, no screenshots kept).
 */
import { HttpClient } from '../../harness/http/client.ts';
import { Recorder } from '../../harness/http/recorder.ts';
import type { BrowserHost } from '../../harness/login/chromium.ts';
import type { BrowserState } from '../../harness/login/session.ts';
import { Redactor } from '../../harness/redact/redact.ts';
import { loopbackFetch } from '../support/loopback-fetch.ts';

export function loopbackHttp(): HttpClient {
  return new HttpClient({ recorder: new Recorder(new Redactor()), fetch: loopbackFetch, requestTimeoutMs: 20_000 });
}

/** The browser part of a driver's options: contexts from `host`, `timeoutMs` per step, no evidence kept. */
export function browserPart(host: BrowserHost, timeoutMs = 20_000) {
  return {
    newContext: (state?: BrowserState) => host.newContext(state),
    timeoutMs,
    recorder: { screenshot: async () => undefined, transcript: () => undefined },
  };
}

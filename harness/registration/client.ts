/**
 * The client side of OAuth 2.0 Dynamic Client Registration (RFC 7591) and its management protocol (RFC 7592):
 * register, read, update and delete one client, over the harness's recording HTTP client (http/client.ts), so every
 * exchange is in the transcript, bounded in size and time, held to the allowed origins, and redacted (the issued
 * client_secret and registration_access_token are learned from the response and masked wherever they appear; the
 * Bearer header is masked by name). The target's answers are data: an RFC error body is returned as an outcome
 * (`ok: false` with its error and error_description), never thrown; only a transport failure or a response over a
 * limit throws (as every other request of the harness).
 */
import { REGISTRATION_STATUS } from '../../protocol/registration.ts';
import type { HttpClient, HttpResponse } from '../http/client.ts';
import { isRecord } from '../../protocol/guards.ts';

/** A registered client as the server returned it (RFC 7591 §3.2.1, RFC 7592 §3). */
export interface Registration {
  clientId: string;
  clientSecret?: string;
  /** 0: the secret never expires (RFC 7591 §3.2.1). */
  clientSecretExpiresAt?: number;
  /** The Bearer token of the client's configuration endpoint (RFC 7592 §3). */
  registrationAccessToken?: string;
  /** The client's configuration endpoint (RFC 7592 §3). */
  registrationClientUri?: string;
  /** The whole response object: the metadata as the server registered it, with the fields above. */
  metadata: Record<string, unknown>;
}

/** What a registration request got: the outcome, the status and the response (for a scenario's own checks). */
export type RegistrationOutcome<T> =
  | { ok: true; status: number; value: T; response: HttpResponse }
  | {
      ok: false;
      status: number;
      /** The RFC 7591 §3.2.2 / RFC 6749 §5.2 `error` of the body, when it has a string one. */
      error?: string;
      errorDescription?: string;
      /** One sentence: what was asked, what came back (the target's words quoted, cut at MAX_QUOTED). */
      problem: string;
      response: HttpResponse;
    };

/** Characters of a target's error_description quoted in a problem sentence. */
export const MAX_QUOTED = 300;

export interface RegisterOptions {
  /** RFC 7591 §3: an initial access token, sent as a Bearer token. */
  initialAccessToken?: string;
  /** Names the exchange in the transcript. */
  label?: string;
}

export interface ManageOptions {
  /** Send this registration access token instead of the registration's own (e.g. a wrong one, or none: ''). */
  token?: string;
  label?: string;
}

const bearer = (token: string | undefined): Record<string, string> =>
  token ? { authorization: `Bearer ${token}` } : {};

/** The target's words, quoted and cut. */
function quote(text: string): string {
  const cut = text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED)}…` : text;
  return JSON.stringify(cut);
}

/** The error outcome of a response: its RFC error body as data, and one sentence. */
function failure(response: HttpResponse, what: string, why?: string): RegistrationOutcome<never> {
  const { error, error_description: description } = response.body;
  const err = typeof error === 'string' ? error : undefined;
  const desc = typeof description === 'string' ? description : undefined;
  const answer =
    why ??
    (err
      ? `${quote(err)}${desc ? `: ${quote(desc)}` : ''}`
      : response.text
        ? `a body that is no RFC 7591 §3.2.2 error object: ${quote(response.text)}`
        : 'no body');
  return {
    ok: false,
    status: response.status,
    ...(err === undefined ? {} : { error: err }),
    ...(desc === undefined ? {} : { errorDescription: desc }),
    problem: `${what} got HTTP ${response.status} with ${answer}`,
    response,
  };
}

/** The registration in a 2xx response, or why it is not one. */
function registrationOf(response: HttpResponse, what: string): RegistrationOutcome<Registration> {
  if (response.status < 200 || response.status > 299) return failure(response, what);
  const body = response.json;
  if (!isRecord(body)) return failure(response, what, 'a body that is not a JSON object (RFC 7591 §3.2.1)');
  const m = body;
  if (typeof m.client_id !== 'string' || !m.client_id)
    return failure(response, what, 'no client_id in its JSON body (RFC 7591 §3.2.1)');
  const text = (name: string) => {
    const value = m[name];
    return typeof value === 'string' && value ? { [name]: value } : {};
  };
  const secret = text('client_secret').client_secret;
  const token = text('registration_access_token').registration_access_token;
  const uri = text('registration_client_uri').registration_client_uri;
  return {
    ok: true,
    status: response.status,
    response,
    value: {
      clientId: m.client_id,
      ...(secret ? { clientSecret: secret } : {}),
      ...(typeof m.client_secret_expires_at === 'number' ? { clientSecretExpiresAt: m.client_secret_expires_at } : {}),
      ...(token ? { registrationAccessToken: token } : {}),
      ...(uri ? { registrationClientUri: uri } : {}),
      metadata: m,
    },
  };
}

/**
 * RFC 7591 §3.1: POST the metadata as JSON to the registration endpoint. A 2xx answer with a client_id is the
 * registration (201 is the RFC's status; `status` says what came); anything else an error outcome.
 */
export async function register(
  http: HttpClient,
  endpoint: string,
  metadata: Record<string, unknown>,
  options: RegisterOptions = {},
): Promise<RegistrationOutcome<Registration>> {
  const response = await http.send({
    method: 'POST',
    url: endpoint,
    headers: bearer(options.initialAccessToken),
    json: metadata,
    label: options.label ?? 'client registration (RFC 7591 §3.1)',
  });
  return registrationOf(response, 'the registration request');
}

/** Why a registration cannot be managed (RFC 7592 §3: it needs the configuration endpoint and its token). */
export function unmanageable(registration: Registration): string | undefined {
  if (!registration.registrationClientUri)
    return 'the registration response has no registration_client_uri (RFC 7592 §3)';
  if (!registration.registrationAccessToken)
    return 'the registration response has no registration_access_token (RFC 7592 §3)';
  return undefined;
}

function configurationEndpoint(registration: Registration): string {
  const why = unmanageable(registration);
  if (why) throw new TypeError(`client ${registration.clientId} cannot be managed: ${why}`);
  return registration.registrationClientUri!;
}

/** One request to the client's configuration endpoint with its registration access token (or options.token). */
function manage(
  http: HttpClient,
  registration: Registration,
  method: 'GET' | 'PUT' | 'DELETE',
  label: string,
  options: ManageOptions,
  json?: Record<string, unknown>,
): Promise<HttpResponse> {
  return http.send({
    method,
    url: configurationEndpoint(registration),
    headers: bearer(options.token ?? registration.registrationAccessToken),
    ...(json ? { json } : {}),
    label: options.label ?? label,
  });
}

/** RFC 7592 §2.1: GET the client's configuration with its registration access token. */
export async function read(
  http: HttpClient,
  registration: Registration,
  options: ManageOptions = {},
): Promise<RegistrationOutcome<Registration>> {
  const response = await manage(http, registration, 'GET', 'client read (RFC 7592 §2.1)', options);
  return registrationOf(response, 'the client read request');
}

/** The fields RFC 7592 §2.2 forbids in an update request (the server's own). */
const SERVER_FIELDS = [
  'registration_access_token',
  'registration_client_uri',
  'client_secret_expires_at',
  'client_id_issued_at',
] as const;

/**
 * RFC 7592 §2.2: PUT the client's whole metadata (it replaces the registration), with its client_id; the server's own
 * fields are left out, the client_secret kept when there is one.
 */
export async function update(
  http: HttpClient,
  registration: Registration,
  metadata: Record<string, unknown>,
  options: ManageOptions = {},
): Promise<RegistrationOutcome<Registration>> {
  const body: Record<string, unknown> = {
    ...metadata,
    client_id: registration.clientId,
    ...(registration.clientSecret ? { client_secret: registration.clientSecret } : {}),
  };
  for (const f of SERVER_FIELDS) delete body[f];
  const response = await manage(http, registration, 'PUT', 'client update (RFC 7592 §2.2)', options, body);
  return registrationOf(response, 'the client update request');
}

/**
 * RFC 7592 §2.3: DELETE the client with its registration access token. 204 is the RFC's answer; any 2xx counts as
 * deleted (`status` says which), anything else is an error outcome.
 */
export async function remove(
  http: HttpClient,
  registration: Registration,
  options: ManageOptions = {},
): Promise<RegistrationOutcome<undefined>> {
  const response = await manage(http, registration, 'DELETE', 'client delete (RFC 7592 §2.3)', options);
  if (response.status >= 200 && response.status <= 299) {
    return { ok: true, status: response.status, value: undefined, response };
  }
  return failure(response, 'the client delete request');
}

/** Whether an outcome has the RFC's own success status (201 for a registration, 200 read/update, 204 delete). */
export function rfcStatus(kind: keyof typeof REGISTRATION_STATUS, outcome: RegistrationOutcome<unknown>): boolean {
  return outcome.ok && outcome.status === REGISTRATION_STATUS[kind];
}

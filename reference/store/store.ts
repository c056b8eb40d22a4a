/**
 * The Store: where everything short-lived and single-use lives (codes, refresh-token families,
 * revocations, pending authorization and device requests, dynamically registered clients). The
 * seeded clients and users stay in plain maps.
 *
 * Contract for every implementation:
 * - Single-use operations are atomic: `consumeCode` returns a record exactly once, however many
 *   callers race for it; `rotateRefresh` succeeds exactly once for a given old token;
 *   `consumeInteraction` and `transitionDevice` likewise. No caller may read-then-delete in two
 *   steps.
 * - A code or refresh token is consumed together with the records of the tokens issued for it (`Successors`), in
 *   the same atomic step: never one without the other, also when the store fails in between.
 * - Every record carries `expiresAt` (epoch milliseconds); an expired record reads as absent
 *   and is evicted, so the store never grows without bound.
 */

export type PkceMethod = 'S256' | 'plain';

/**
 * RFC 6749 §3.1.1, OAuth 2.0 Multiple Response Types §3 and OIDC Core §3.2 and §3.3: a code, tokens (implicit), or a
 * code with tokens (hybrid). Each is written with its parts in alphabetical order.
 */
export type ResponseType =
  | 'code'
  | 'token'
  | 'id_token'
  | 'id_token token'
  | 'code id_token'
  | 'code token'
  | 'code id_token token';

/**
 * How the response reaches the redirect URI (OAuth 2.0 Multiple Response Types §2.1, Form Post Response Mode §2), and
 * the same three with the parameters in one signed JWT, the `response` parameter (JARM §2.3: response_mode=jwt is
 * resolved to query.jwt or fragment.jwt by the response type).
 */
export type ResponseMode = 'query' | 'fragment' | 'form_post' | 'query.jwt' | 'fragment.jwt' | 'form_post.jwt';

/** Claims asked for by name with the claims request parameter (OIDC Core §5.5), by where they go. */
export interface RequestedClaims {
  idToken?: string[];
  userinfo?: string[];
}

/** An authorization code and everything it is bound to (RFC 6749 §4.1.3, RFC 7636 §4.6). */
export interface CodeRecord {
  code: string;
  /** The grant the code starts: the tokens it issues carry it, and a replay revokes it. */
  grantId: string;
  clientId: string;
  redirectUri: string;
  sub: string;
  scope: string;
  nonce?: string;
  codeChallenge?: string;
  codeChallengeMethod?: PkceMethod;
  /** Epoch seconds of the user's login (the ID token's auth_time). */
  authTime: number;
  /** The login session's sid, for the ID token (OIDC Back-Channel Logout §2.1). */
  sid?: string;
  /** The claims request parameter's claims (OIDC Core §5.5). */
  claims?: RequestedClaims;
  /** RFC 8707 §2: the resources the authorization request named (absent: none); the token request picks one. */
  resources?: string[];
  /** RFC 9449 §10: the dpop_jkt of the authorization request; only a DPoP proof by that key redeems the code. */
  dpopJkt?: string;
  /** Issued in a hybrid response (OIDC Core §3.3), beside tokens of the authorization endpoint. */
  hybrid?: boolean;
  expiresAt: number;
}

/** One refresh token; all tokens of one grant form its family (RFC 9700 §4.14.2). */
export interface RefreshRecord {
  token: string;
  grantId: string;
  clientId: string;
  sub: string;
  /** The scope of the grant; every rotation keeps it (RFC 6749 §6). */
  scope: string;
  authTime: number;
  /** RFC 9449 §5: a public client's token is bound to this DPoP key thumbprint. */
  jkt?: string;
  /** RFC 8707 §2.2: the grant's resources (its code's); a refresh may narrow to one, never widen. */
  resources?: string[];
  expiresAt: number;
}

/** active → rotated (by use) or revoked (by replay, revocation or a code replay). */
export type RefreshState = 'active' | 'rotated' | 'revoked';

export interface StoredRefresh {
  record: RefreshRecord;
  state: RefreshState;
}

/** A JWT access token known by its jti, so that revocation and introspection can see it. */
export interface AccessTokenRecord {
  jti: string;
  grantId?: string;
  clientId: string;
  /** Claims the claims request parameter asked userinfo to return for this token (OIDC Core §5.5). */
  userinfoClaims?: string[];
  expiresAt: number;
}

export interface StoredAccessToken {
  record: AccessTokenRecord;
  /** Revoked itself, or through its grant (a revoked refresh family or a replayed code). */
  revoked: boolean;
}

/** An authorization request between GET /auth and the redirect back to the client. */
export interface InteractionRecord {
  id: string;
  clientId: string;
  redirectUri: string;
  /** Absent means code. */
  responseType?: ResponseType;
  /** The response_mode asked for; absent: the response type's default (query for code, else fragment). */
  responseMode?: ResponseMode;
  scope: string;
  state?: string;
  nonce?: string;
  codeChallenge?: string;
  codeChallengeMethod?: PkceMethod;
  /** Set once the user has logged in. */
  sub?: string;
  authTime?: number;
  /** The id of the login session the user signed in with (server-side only; never sent). */
  sessionId?: string;
  /** The claims request parameter's claims (OIDC Core §5.5). */
  claims?: RequestedClaims;
  /** prompt=consent (OIDC Core §3.1.2.1): a consent remembered earlier (variant remember-consent) is not used. */
  promptConsent?: boolean;
  /** RFC 8707 §2: the resources the authorization request named (absent: none); the token request picks one. */
  resources?: string[];
  /** RFC 9449 §10: the DPoP key thumbprint the code will be bound to (dpop_jkt). */
  dpopJkt?: string;
  expiresAt: number;
}

/** A device request: pending → approved or denied (at the activation page) → redeemed (by one poll). */
export type DeviceStatus = 'pending' | 'approved' | 'denied' | 'redeemed';

/** A device authorization request (RFC 8628 §3.1–3.5), keyed by its device code. */
export interface DeviceRecord {
  deviceCode: string;
  /** The eight letters without the dash; unique among live requests. */
  userCode: string;
  /** The grant its tokens will belong to. */
  grantId: string;
  clientId: string;
  scope: string;
  status: DeviceStatus;
  /** Seconds the device must leave between polls; each slow_down adds 5 (RFC 8628 §3.5). */
  interval: number;
  /** Epoch milliseconds of the latest poll while pending. */
  lastPollAt?: number;
  /** Who approved or denied, and when they logged in (epoch seconds); set with the decision. */
  user?: { sub: string; authTime: number };
  expiresAt: number;
}

/** A browser at the activation page, between a valid user code and the decision. */
export interface ActivationRecord {
  id: string;
  deviceCode: string;
  /** Set once the user has logged in. */
  user?: { sub: string; authTime: number };
  expiresAt: number;
}

/** A login session at the IdP (the session cookie's value is its id): prompt, max_age and logout act on it. */
export interface SessionRecord {
  id: string;
  sub: string;
  /** Epoch seconds of the login. */
  authTime: number;
  /** Client ids the user has consented for in this session, with the scopes granted. */
  consents?: Record<string, string>;
  /**
   * The session's public identifier: the ID tokens' and logout tokens' sid (OIDC Back-Channel Logout §2.1,
   * Front-Channel Logout §3); never the record's id, which is the cookie's secret value.
   */
  sid?: string;
  /** Client ids that got an authorization response in this session: the RPs a logout notifies. */
  clients?: string[];
  expiresAt: number;
}

/** A pushed authorization request (RFC 9126 §2): its parameters, kept until used once or expired. */
export interface PushedRequestRecord {
  /** The request_uri handed to the client (urn:ietf:params:oauth:request_uri:…). */
  requestUri: string;
  clientId: string;
  params: Record<string, string>;
  /** RFC 8707 §2: the resource parameters pushed (repeatable, so not among `params`). */
  resources?: string[];
  /**
   * The redirect_uri was not registered: taken because the variant par-redirect-relaxed lets an authenticated client
   * push one (RFC 9126 §2.4), so /auth does not match it against the registered list again.
   */
  unregisteredRedirect?: boolean;
  expiresAt: number;
}

/**
 * A client registered at the registration endpoint (RFC 7591 §3), kept until `expiresAt` (its
 * client_secret_expires_at) or its deletion (RFC 7592 §2.3). `metadata` is the client metadata as
 * registered (RFC 7591 §2), without the credentials; the server derives the client from it.
 */
export interface ClientRegistrationRecord {
  clientId: string;
  clientSecret?: string;
  /** SHA-256 (base64url) of the registration access token (RFC 7592 §3); the token itself is not kept. */
  registrationTokenHash: string;
  /** Epoch seconds (client_id_issued_at). */
  issuedAt: number;
  metadata: Record<string, unknown>;
  expiresAt: number;
}

/**
 * The records of the tokens issued for a consumed code or a rotated refresh token: saved in the same atomic step as the
 * consumption, so a store failure can leave the code (or token) either unused or used with its tokens saved.
 */
export interface Successors {
  accessToken?: AccessTokenRecord;
  refresh?: RefreshRecord;
}

export interface Store {
  saveCode(record: CodeRecord): Promise<void>;
  /** The record of an unconsumed, unexpired code, without consuming it. */
  peekCode(code: string): Promise<CodeRecord | undefined>;
  /** Atomic single use: returns the record to exactly one caller, then never again; saves `successors` with it. */
  consumeCode(code: string, successors?: Successors): Promise<CodeRecord | undefined>;
  /** For a code that was already consumed: the grant it started (replay detection). */
  usedCodeGrant(code: string): Promise<string | undefined>;

  saveRefresh(record: RefreshRecord): Promise<void>;
  /** The token and its state; `revoked` also when its whole grant was revoked. */
  findRefresh(token: string): Promise<StoredRefresh | undefined>;
  /** Atomic: when `oldToken` is active, marks it rotated and saves `next` (and `successors`); true exactly once. */
  rotateRefresh(oldToken: string, next: RefreshRecord, successors?: Successors): Promise<boolean>;
  revokeRefresh(token: string): Promise<void>;

  saveAccessToken(record: AccessTokenRecord): Promise<void>;
  revokeAccessToken(jti: string): Promise<void>;
  /** Known, unexpired, and revoked neither itself nor through its grant. */
  isAccessTokenActive(jti: string): Promise<boolean>;
  /** The record of an unexpired access token and whether it is revoked (like findRefresh). */
  findAccessToken(jti: string): Promise<StoredAccessToken | undefined>;

  /** Revokes every token of a grant (refresh family and access tokens), including later ones. */
  revokeGrant(grantId: string, until: number): Promise<void>;
  isGrantRevoked(grantId: string): Promise<boolean>;

  saveInteraction(record: InteractionRecord): Promise<void>;
  findInteraction(id: string): Promise<InteractionRecord | undefined>;
  /** Atomic single use, like consumeCode. */
  consumeInteraction(id: string): Promise<InteractionRecord | undefined>;

  /** Saves a new device request; false (and nothing saved) when a live request has its user code. */
  saveDevice(record: DeviceRecord): Promise<boolean>;
  findDevice(deviceCode: string): Promise<DeviceRecord | undefined>;
  findDeviceByUserCode(userCode: string): Promise<DeviceRecord | undefined>;
  /** Records a poll of a device code: its time, and the polling interval from now on. */
  recordDevicePoll(deviceCode: string, at: number, interval: number): Promise<void>;
  /**
   * Atomic: when the request's status is `from`, sets it to `to` (and the user, when given) and
   * returns the updated record; to exactly one caller, however many race. Saves `successors` with it (redemption).
   */
  transitionDevice(
    deviceCode: string,
    from: DeviceStatus,
    to: DeviceStatus,
    user?: DeviceRecord['user'],
    successors?: Successors,
  ): Promise<DeviceRecord | undefined>;
  /** Whether the device code was issued and has expired since (remembered for a while after): expired_token. */
  deviceCodeExpired(deviceCode: string): Promise<boolean>;

  saveActivation(record: ActivationRecord): Promise<void>;
  findActivation(id: string): Promise<ActivationRecord | undefined>;

  saveSession(record: SessionRecord): Promise<void>;
  findSession(id: string): Promise<SessionRecord | undefined>;
  deleteSession(id: string): Promise<void>;

  savePushedRequest(record: PushedRequestRecord): Promise<void>;
  /** Atomic single use, like consumeCode. */
  consumePushedRequest(requestUri: string): Promise<PushedRequestRecord | undefined>;

  /** Creates or replaces a registered client (RFC 7591 §3, RFC 7592 §2.2). */
  saveClientRegistration(record: ClientRegistrationRecord): Promise<void>;
  findClientRegistration(clientId: string): Promise<ClientRegistrationRecord | undefined>;
  /** RFC 7592 §2.3: true when a live registration was deleted. */
  deleteClientRegistration(clientId: string): Promise<boolean>;

  /**
   * Atomic: records `value` as the latest of `key` in `namespace` until `expiresAt` (epoch ms) and returns the live
   * value it replaced, if any (the user's latest grant for a client, the user's latest session: reference/variants.ts).
   */
  swapLatest(namespace: string, key: string, value: string, expiresAt: number): Promise<string | undefined>;

  /**
   * Atomic "seen once": true for the first caller that marks `key` in `namespace` before
   * `expiresAt` (epoch ms), false for every later one (DPoP proof jti, client assertion jti).
   */
  markOnce(namespace: string, key: string, expiresAt: number): Promise<boolean>;

  /** Resolves when the store answers (Redis: a PING), rejects otherwise; absent: always ready (GET /readyz). */
  ready?(): Promise<void>;

  /** Stops background work (the eviction timer). */
  close(): Promise<void>;
}

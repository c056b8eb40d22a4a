/** OpenID Connect Back-Channel and Front-Channel Logout 1.0: the protocol facts both sides share. */

/** Back-Channel Logout §2.4: the member of the logout token's `events` claim (its value an empty JSON object). */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** Back-Channel Logout §2.5: the form parameter the logout token is POSTed in. */
export const LOGOUT_TOKEN_PARAM = 'logout_token';

/** Back-Channel Logout §2.4: the JWT `typ` a logout token SHOULD carry (explicit typing, RFC 8725 §3.11). */
export const LOGOUT_TOKEN_TYP = 'logout+jwt';

/**
 * django-oauth-toolkit 1.7 with OIDC switched off (OIDC_ENABLED False): the same Debian packages,
 * project and clients as ./index.ts, without the openid scope, ID tokens, userinfo or JWKS. DOT 1.7
 * publishes no RFC 8414 metadata of its own, so the project adds a view that does (idp/metadata.py,
 * at /.well-known/oauth-authorization-server/o for the issuer http://127.0.0.1:PORT/o, RFC 8414 §3).
 */
import { dotIdp } from './index.ts';

export default dotIdp('django-oauth-toolkit-oauth2', false);

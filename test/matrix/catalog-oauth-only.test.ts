/**
 * The planted-flaw matrix (test/matrix/flaw-matrix.ts) against the OAuth-only reference (serve --oauth-only): an
 * OAuth 2.0 authorization server without OpenID Connect. The OpenID-provider scenarios are skipped with the reason;
 * every other claim is proven as on the OpenID provider.
 */
import { registerFlawMatrix } from './flaw-matrix.ts';

registerFlawMatrix(20261125, 'oauth2');

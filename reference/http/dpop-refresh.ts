/** RFC 9449 §5: a DPoP-bound refresh token (a public client's) is used only with a proof by the same key. */
import type { ServerContext } from '../context.ts';
import type { RefreshRecord } from '../store/store.ts';
import { currentBinding } from './dpop.ts';
import { invalidGrant } from '../oauth-error.ts';

export function checkRefreshBinding(server: ServerContext, record: RefreshRecord): void {
  if (record.jkt === undefined || server.flaws.has('dpop-refresh-not-bound')) return;
  if (currentBinding().jkt !== record.jkt) {
    throw invalidGrant('the refresh token is bound to a DPoP key; send a DPoP proof signed by that key');
  }
}

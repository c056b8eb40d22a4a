/**
 * Loopback hosts, and MCP's communication security (MCP 2025-11-25 "Communication Security"; OAuth 2.1 §2.3.1): a
 * redirect URI is https, or http on a loopback host (127.0.0.1, [::1], localhost); never with a fragment.
 */
import { BlockList, isIP } from 'node:net';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

export const familyOf = (address: string) => (isIP(address) === 6 ? 'ipv6' : 'ipv4');

/** A loopback address: 127/8 or ::1. */
export const isLoopbackAddress = (address: string): boolean =>
  isIP(address) !== 0 && LOOPBACK.check(address, familyOf(address));

/** A loopback host name or literal: 127.0.0.1 (any of 127/8), [::1], localhost. */
export function isLoopbackHost(hostname: string): boolean {
  const bare = hostname.replace(/^\[|\]$/g, '');
  return bare === 'localhost' || isLoopbackAddress(bare);
}

/** Whether a redirect URI suits MCP: https, http on loopback, or a native app's private-use scheme. */
export function redirectUriAllowed(uri: string): boolean {
  if (!URL.canParse(uri) || uri.includes('#')) return false;
  const url = new URL(uri);
  if (url.protocol === 'https:') return true;
  if (url.protocol === 'http:') return isLoopbackHost(url.hostname);
  // A private-use scheme of a native app (RFC 8252 §7.1) is neither http nor https.
  return !['javascript:', 'data:', 'vbscript:', 'file:'].includes(url.protocol);
}

/** Whether a redirect URI is http on a host that is not loopback (what MCP refuses at registration). */
export function isPlainHttpRemote(uri: string): boolean {
  if (!URL.canParse(uri)) return false;
  const url = new URL(uri);
  return url.protocol === 'http:' && !isLoopbackHost(url.hostname);
}

/**
 * The field types the target config's schema builds on: absolute http(s) URLs, non-empty strings
 * and secrets (with the shortest length the harness can redact by value), and allowedOrigins'
 * origins, each failing with a message that gives an example.
 */
import { z } from 'zod';
import { EXAMPLES } from './issues.ts';
import type { ClientRole } from '../model/requirements.ts';

export function isAbsoluteUrl(value: string, schemes?: string[]): boolean {
  try {
    const url = new URL(value);
    return !schemes || schemes.includes(url.protocol);
  } catch {
    return false;
  }
}

export const httpUrl = (field: string) =>
  z.string().refine((v) => isAbsoluteUrl(v, ['http:', 'https:']), {
    error: `must be an absolute http(s) URL, e.g. ${EXAMPLES[field]}`,
  });

export const nonEmpty = (field: string) =>
  z.string().min(1, { error: `must not be empty${EXAMPLES[field] ? `, e.g. ${EXAMPLES[field]}` : ''}` });

/**
 * Secrets are redacted by value wherever they appear; a shorter one cannot be (it would garble report text). It is
 * accepted all the same (test IdPs ship demo users such as dwho/dwho), with a warning at start (shortSecretWarnings).
 */
export const MIN_SECRET_LENGTH = 8;
export const secret = (field: string) => nonEmpty(field);

/** An entry of allowedOrigins: an http(s) origin, nothing after it. */
export const origin = z.string().refine(
  (v) => {
    try {
      const u = new URL(v);
      return (
        (u.protocol === 'https:' || u.protocol === 'http:') &&
        `${u.origin}/` === u.href.replace(/\/?$/, '/') &&
        u.pathname === '/'
      );
    } catch {
      return false;
    }
  },
  { error: 'must be an http(s) origin without a path, e.g. "https://login.idp.example"' },
);

/** One value per client role, in CLIENT_ROLES's order (a new role is a type error here until it is listed). */
export function perRole<T>(make: (role: ClientRole) => T): Record<ClientRole, T> {
  return {
    confidential: make('confidential'),
    confidential2: make('confidential2'),
    public: make('public'),
    machine: make('machine'),
    device: make('device'),
    exchange: make('exchange'),
    legacy: make('legacy'),
    keyed: make('keyed'),
  };
}

/**
 * Resource limits against a hostile target (docs/security.md): how much of a response is read, how deep
 * JSON is parsed. A response over a limit ends the scenario with an `error` that names the limit
 * (LimitExceededError), never a crash, a stack overflow or an exhausted heap.
 */
import { type ErrorCode, HarnessError } from './failures.ts';

export const DEFAULT_LIMITS = {
  /** Bytes read of one response body, after decompression (the config's limits.maxBodyBytes). */
  maxBodyBytes: 5 * 1024 * 1024,
  /** Nesting of arrays and objects in a JSON body: deeper bodies are not parsed. */
  maxJsonDepth: 64,
} as const;

export interface Limits {
  maxBodyBytes: number;
  maxJsonDepth: number;
}

/** A response exceeded a limit: the scenario cannot judge it (an `error` naming the cause). */
export class LimitExceededError extends HarnessError {
  override readonly name = 'LimitExceededError';
  /** The target's response was too large or too deep: the cause is the target, not the harness. */
  override readonly code: ErrorCode = 'ERR_TARGET_LIMIT';
}

/**
 * Whether a JSON text nests arrays and objects deeper than `max`: one linear scan that skips
 * strings, so the check itself cannot overflow a stack or take more than one pass.
 */
export function jsonDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** JSON.parse, or undefined when the text is not JSON or nests deeper than `maxDepth`. */
export function parseJsonBounded(text: string, maxDepth: number = DEFAULT_LIMITS.maxJsonDepth): unknown {
  if (jsonDeeperThan(text, maxDepth)) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

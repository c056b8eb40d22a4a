import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as generators from '../../generators/index.ts';

const dir = new URL('../../generators/', import.meta.url);

describe('generators/index.ts', () => {
  it('re-exports the generator of every concept', () => {
    for (const name of [
      'redirectUriNearMiss',
      'validVerifier',
      'invalidVerifier',
      's256Challenge',
      'pkcePair',
      'jwtForgery',
      'forgeAlgNone',
      'forgeHs256KeyConfusion',
      'malformedTokenRequest',
      'scopeSubset',
      'scopeSuperset',
      'scopeEscalation',
    ]) {
      expect(typeof (generators as Record<string, unknown>)[name], name).toBe('function');
    }
  });

  it('stays pure: only its own files, protocol/, fast-check and node:crypto; no network modules', () => {
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const imports = [...readFileSync(new URL(file, dir), 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]);
      for (const spec of imports)
        expect(spec, `${file} imports ${spec}`).toMatch(
          /^(\.\/[\w-]+\.ts|\.\.\/protocol\/[\w-]+\.ts|fast-check|node:crypto)$/,
        );
    }
  });
});

/**
 * The implicit and hybrid scenarios against a reference whose legacy client may use the implicit grant but not the
 * code grant, while another client makes the server offer the hybrid response types: a response type the client is
 * refused (unauthorized_client) is left out with a note, and a scenario none of whose response types the client may
 * use is skipped naming the refusals, never an error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedReference, type EmbeddedReference } from '../../cli/embedded.ts';
import type { Report } from '../../harness/model/results.ts';
import { runConformance } from '../../index.ts';
import { LEGACY_CLIENT, SEEDED_CLIENTS, type ReferenceOptions } from '../../reference/index.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';

const IDS = [
  'hybrid.c-hash',
  'hybrid.at-hash',
  'implicit.nonce-required',
  'implicit.fragment-delivery',
  'form-post.implicit-hybrid',
];
let ref: EmbeddedReference;
let report: Report;
beforeAll(async () => {
  const partner = SEEDED_CLIENTS.confidential2;
  // The role map takes any config role; legacy is one (protocol/client-roles.ts).
  const clients = {
    confidential2: { ...partner, grantTypes: [...partner.grantTypes, 'implicit'] },
    legacy: { ...LEGACY_CLIENT, clientId: 'implicit-only', grantTypes: ['implicit'] },
  } as ReferenceOptions['clients'];
  ref = await startEmbeddedReference({ clients });
  report = await runConformance({
    target: ref.target,
    scenarios: BUILT_IN_SCENARIOS.filter((s) => IDS.includes(s.id)),
    seed: 31,
  });
}, 120_000); // five scenarios, a few sign-ins: generous on a loaded machine
afterAll(() => ref?.server.close());

const result = (id: string) => report.results.find((r) => r.id === id)!;

describe('a response type the legacy client may not use', () => {
  it('the hybrid types offered, the client refused both: hybrid.c-hash is skipped, naming the errors', () => {
    expect(ref.target.clients.legacy?.clientId).toBe('implicit-only');
    expect(result('hybrid.c-hash')).toMatchObject({ status: 'skipped' });
    expect(result('hybrid.c-hash').skipReason).toMatch(
      /clients\.legacy is refused every response type .*code id_token \(error=unauthorized_client\)/,
    );
  });

  it('one type refused, the other judged: hybrid.at-hash passes on id_token token, with a note for the other', () => {
    const r = result('hybrid.at-hash');
    expect(r.status).toBe('passed');
    const notes = r.evidence.flatMap((e) => (e.kind === 'note' ? [e.text] : []));
    expect(notes.some((n) => /refused response_type=code id_token token with error=unauthorized_client/.test(n))).toBe(
      true,
    );
    expect(notes.some((n) => /response_type=id_token token: the ID token's at_hash matches/.test(n))).toBe(true);
  });

  it('implicit.nonce-required judges the implicit type and leaves out the hybrid one', () => {
    expect(result('implicit.nonce-required').status).toBe('passed');
  });

  it('implicit.fragment-delivery and form-post.implicit-hybrid judge the implicit types, the hybrid ones noted', () => {
    for (const id of ['implicit.fragment-delivery', 'form-post.implicit-hybrid']) {
      const r = result(id);
      expect(r.status, id).toBe('passed');
      const notes = r.evidence.flatMap((e) => (e.kind === 'note' ? [e.text] : []));
      expect(notes.some((n) => /refused response_type=code id_token with error=unauthorized_client/.test(n))).toBe(
        true,
      );
      expect(
        notes.some((n) => /^response_type=id_token token: /.test(n)),
        id,
      ).toBe(true);
    }
  });
});

/**
 * Issue 40 item 1: what the harness builds is redacted by what it means. Each kind of structure it signs — a request
 * object, a client assertion, a DPoP proof, one inside another — is built (inside reportingBuilt, as in a scenario)
 * with an ID token inside: one the redactor learned from a token response, and one it never saw (the learning budget
 * spent). The structures are then recorded every way a transcript or a hostile target may show them — raw,
 * percent-encoded, JSON-escaped twice, glued to a word, after 1,001 tiny JWTs, in base64 and base64url at every
 * alignment — and every report format is written and decoded: no ID token comes back.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { reportingBuilt } from '../../harness/redact/built.ts';
import { clientAssertion } from '../../harness/tokens/client-assertion.ts';
import type { Client } from '../../harness/config/load.ts';
import { stoppedRunReport } from '../../harness/run/conformance.ts';
import { createDpopKey } from '../../harness/tokens/dpop.ts';
import { Redactor } from '../../harness/redact/redact.ts';
import { requestObject } from '../../harness/tokens/request-object.ts';
import type { Evidence, ScenarioResult } from '../../harness/model/results.ts';
import { REPORT_FORMATS, writeReports } from '../../reports/index.ts';
import type { HostileIdp } from '../hostile/hostile-idp.ts';
import { type CliRun, decodedLeaks } from '../hostile/run-cli.ts';

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const idTokenOf = (sub: string) =>
  `${b64url({ alg: 'RS256', kid: 'k1' })}.${b64url({ iss: 'https://idp.example', sub, aud: 'web' })}.` +
  Buffer.from(Array.from({ length: 256 }, (_, i) => (i * 31 + sub.length) % 256)).toString('base64url');

describe('issue 40 item 1: structures the harness built, redacted by meaning', () => {
  it('no ID token decodes out of any report format, whatever the structure, encoding or depth', async () => {
    const learned = idTokenOf('alice');
    const unseen = idTokenOf('bob-never-learned');
    const redactor = new Redactor();
    redactor.observe({
      kind: 'http',
      durationMs: 1,
      request: { method: 'POST', url: 'https://idp.example/token', headers: {} },
      response: { status: 200, headers: {}, body: JSON.stringify({ id_token: learned, token_type: 'Bearer' }) },
    });
    const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
    const client = {
      role: 'keyed',
      clientId: 'web',
      scope: 'openid',
      authMethod: 'private_key_jwt',
      privateJwk: { ...jwk, kid: 'c1' },
    } as Client;
    const audience = 'https://idp.example';
    const built = reportingBuilt(redactor, () => {
      // First: the unseen token only inside a JSON string, before anything else shows it to the redactor.
      const hidden = requestObject(client, { prompt: 'none', claims: JSON.stringify({ hint: unseen }) }, { audience });
      const assertion = clientAssertion(client, { audience, jti: learned });
      const proof = createDpopKey().proof('POST', 'https://idp.example/token', { jti: unseen });
      const plain = requestObject(client, { prompt: 'none', id_token_hint: learned }, { audience });
      const unsigned = requestObject(client, { id_token_hint: unseen }, { audience, alg: 'none' });
      const nested = requestObject(client, { client_assertion: assertion, request: plain, dpop: proof }, { audience });
      return { assertion, proof, plain, hidden, unsigned, nested };
    });
    const all = Object.values(built);
    const b64 = (s: string, prefix = '') => Buffer.from(prefix + s).toString('base64');
    const echo = all
      .flatMap((s) => [
        `ref_${s}_end`,
        encodeURIComponent(encodeURIComponent(s)),
        JSON.stringify(JSON.stringify({ s })),
        b64(s),
        b64(s, 'r='),
        b64(s, 'rq='),
        Buffer.from(`x${s}`).toString('base64url'),
        b64(Buffer.from(s.split('.')[1]!, 'base64url').toString(), 'p:'),
      ])
      .join('\n');
    const evidence: Evidence[] = [
      {
        kind: 'http',
        durationMs: 1,
        request: {
          method: 'POST',
          url: `https://idp.example/authorize?request=${built.nested}&id_token_hint=${unseen}`,
          headers: { dpop: built.proof, 'content-type': 'application/x-www-form-urlencoded' },
          body: `request=${encodeURIComponent(built.hidden)}&client_assertion=${built.assertion}&x=${built.unsigned}`,
        },
        response: {
          status: 400,
          headers: { 'content-type': 'text/html', location: `https://rp.example/cb?error=x&echo=${built.plain}` },
          body: `<pre>${'eyJhIjoxfQ.eyJiIjoxfQ. '.repeat(1_001)}</pre>${echo}`,
        },
      },
      { kind: 'note', text: `sent ${JSON.stringify(built)}` },
    ];
    const result: ScenarioResult = {
      id: 'built.structures',
      title: 'structures',
      area: 'run',
      status: 'passed',
      severity: 'info',
      requirements: [],
      catches: [],
      durationMs: 1,
      message: `echoed ${echo}`,
      evidence,
    };
    const stopped = stoppedRunReport({
      issuer: audience,
      source: 'object',
      reason: 'none',
      startedAt: new Date(),
      plan: { seed: 1, runs: 1, profile: 'spec', selection: { only: [], skip: [] } },
    });
    const report = { ...stopped, results: [redactor.result(redactor.result(result))] };
    const dir = await mkdtemp(path.join(tmpdir(), 'built-'));
    await writeReports(report, dir, REPORT_FORMATS);
    const files = await readdir(dir);
    expect(files.sort()).toEqual(['junit.xml', 'report.html', 'report.json', 'report.md', 'report.sarif']);
    const everything = (await Promise.all(files.map((f) => readFile(path.join(dir, f), 'utf8')))).join('\n');
    const run = { everything } as CliRun;
    expect(decodedLeaks(run, { issued: [learned, unseen] } as HostileIdp)).toEqual([]);
    // What is shown instead: the structures decoded, the tokens masked (the learned one by its label).
    const json = await readFile(path.join(dir, 'report.json'), 'utf8');
    expect(json).toContain('\\"id_token_hint\\":\\"[REDACTED:id_token:1]\\"');
    expect(json).toMatch(/\\"jti\\":\\"\[REDACTED:token:\d\]\\"/);
    expect(json).toContain('[encoded: JWT(header');
    // The control: without reportingBuilt, the same structures built elsewhere are not known to the redactor.
    const elsewhere = new Redactor();
    const hiddenAgain = requestObject(client, { claims: JSON.stringify({ hint: unseen }) }, { audience });
    expect(elsewhere.text(`ref_${hiddenAgain}`)).toBe(`ref_${hiddenAgain}`);
  });

  it('a structure with nothing secret inside (a DPoP proof) is shown as it was sent', () => {
    const redactor = new Redactor([{ value: 'config-client-secret-1', kind: 'secret' }]);
    const proof = reportingBuilt(redactor, () => createDpopKey().proof('GET', 'https://idp.example/userinfo'));
    expect(redactor.headers({ dpop: proof }).dpop).toBe(proof);
    expect(redactor.text(`x${proof}`)).toBe(`x${proof}`);
  });
});

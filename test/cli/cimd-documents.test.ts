import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cimdDocumentsCommand } from '../../cli/cimd-documents.ts';
import { UsageError } from '../../cli/command.ts';
import { validateConfig } from '../../harness/config/load.ts';

describe('idp-conformance cimd-documents', () => {
  it('writes one document per role (client_id its URL exactly) and the clients that use them', async () => {
    const out = await mkdtemp(path.join(tmpdir(), 'idpc-cimd-'));
    expect(await cimdDocumentsCommand.run(['--out', out, '--base-url', 'https://cimd.example/idpc/'])).toBe(0);
    expect((await readdir(out)).sort()).toEqual(['public.json', 'target-config.cimd.json']);
    const doc = JSON.parse(await readFile(path.join(out, 'public.json'), 'utf8'));
    expect(doc).toMatchObject({
      client_id: 'https://cimd.example/idpc/public.json',
      client_name: 'idp-conformance public',
      redirect_uris: ['http://127.0.0.1:8976/public/callback'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const fragment = JSON.parse(await readFile(path.join(out, 'target-config.cimd.json'), 'utf8'));
    // The fragment is a valid part of a target config.
    const config = validateConfig({ issuer: 'https://idp.example', ...fragment });
    expect(config.clients.public).toEqual({
      clientId: doc.client_id,
      redirectUri: doc.redirect_uris[0],
      authMethod: 'none',
    });
  });

  it('needs --out and an absolute --base-url', async () => {
    await expect(cimdDocumentsCommand.run(['--base-url', 'https://x.example'])).rejects.toThrow(UsageError);
    await expect(cimdDocumentsCommand.run(['--out', '/tmp/x', '--base-url', 'cimd.example'])).rejects.toThrow(
      /absolute http\(s\) URL/,
    );
  });
});

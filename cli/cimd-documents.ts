/**
 * `idp-conformance cimd-documents --out DIR --base-url URL`: the harness's Client ID Metadata Documents written to a
 * folder for the user to publish at URL (one per role, harness/cimd/documents.ts), with a target-config fragment that
 * names the clients they identify. For an authorization server that cannot reach a listener of the harness's: the
 * run then uses these clients as configured ones; the cimd.* scenarios, which publish documents of their own during
 * the run, need the listener (the config's `cimd` section) and skip without it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CIMD_ROLES, cimdDocument, joinUrl, roleRedirectUri } from '../harness/cimd/documents.ts';
import { isAbsoluteUrl } from '../harness/config/fields.ts';
import { type Command, UsageError, parseOptions } from './command.ts';

/** The loopback origin the written documents' redirect URIs use (nothing listens there: the walk stops at it). */
export const STATIC_REDIRECT_ORIGIN = 'http://127.0.0.1:8976';

const USAGE = `Usage: idp-conformance cimd-documents --out DIR --base-url URL

Writes the harness's Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document),
one per role (${CIMD_ROLES.join(', ')}), to DIR as ROLE.json, each with client_id = URL/ROLE.json,
and DIR/target-config.cimd.json: the "clients" entries that use them. Publish DIR at URL (https
for a remote authorization server), then merge the clients into your target config.

A run can serve fresh documents itself instead (the config's "cimd" section: a listener and the
public URL that reaches it); the cimd.* scenarios need that listener.

Options:
  --out DIR        the folder to write (created if missing)
  --base-url URL   where DIR will be published, e.g. https://cimd.example/idp-conformance
  -h, --help       show this help`;

/** The documents and the config fragment for `baseUrl`: file name → content. */
export function cimdFiles(baseUrl: string): Record<string, string> {
  const files: Record<string, string> = {};
  const clients: Record<string, unknown> = {};
  for (const role of CIMD_ROLES) {
    const url = joinUrl(baseUrl, `${role}.json`);
    const redirectUri = roleRedirectUri(STATIC_REDIRECT_ORIGIN, role);
    files[`${role}.json`] = `${JSON.stringify(cimdDocument(url, role, redirectUri), null, 2)}\n`;
    clients[role] = { clientId: url, redirectUri, authMethod: 'none' };
  }
  files['target-config.cimd.json'] = `${JSON.stringify({ clients }, null, 2)}\n`;
  return files;
}

export const cimdDocumentsCommand: Command = {
  summary: "write the harness's Client ID Metadata Documents to a folder to publish",
  usage: USAGE,
  async run(argv) {
    const v = parseOptions(argv, {
      out: { type: 'string' },
      'base-url': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    });
    if (v.help) {
      console.log(USAGE);
      return 0;
    }
    if (!v.out) throw new UsageError('--out DIR is required');
    const base = v['base-url'];
    if (!base || !isAbsoluteUrl(base, ['http:', 'https:']))
      throw new UsageError('--base-url must be an absolute http(s) URL, e.g. https://cimd.example/idp-conformance');
    if (new URL(base).protocol !== 'https:')
      console.error('idp-conformance cimd-documents: --base-url is not https: only a loopback test server fetches it');
    await mkdir(v.out, { recursive: true });
    const files = cimdFiles(base);
    for (const [name, content] of Object.entries(files)) await writeFile(path.join(v.out, name), content);
    console.log(`wrote ${Object.keys(files).join(', ')} to ${v.out}; publish it at ${base}`);
    return 0;
  },
};

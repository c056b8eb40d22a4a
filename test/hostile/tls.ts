/**
 * A self-signed certificate for 127.0.0.1, made at test time with the openssl command-line tool (Debian's openssl),
 * so a hostile IdP can be an https issuer. The harness is told to trust it the test-only ways that change nothing in
 * the product: the CLI child gets NODE_EXTRA_CA_CERTS (Node's own setting for extra roots), and Chromium is started
 * through a wrapper (CHROMIUM_PATH) that adds --ignore-certificate-errors-spki-list with this certificate's key
 * alone, so every other certificate is still checked.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate, createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findChromium } from '../../harness/login/chromium.ts';

export interface TestTls {
  key: string;
  cert: string;
  /** The certificate's file: NODE_EXTRA_CA_CERTS for the CLI child. */
  certFile: string;
  /** base64 SHA-256 of the certificate's SubjectPublicKeyInfo (Chromium's --ignore-certificate-errors-spki-list). */
  spki: string;
  /** A script that starts the system's Chromium trusting this certificate alone besides the usual roots. */
  chromiumWrapper(): string;
  dispose(): void;
}

export function makeTestTls(): TestTls {
  const dir = mkdtempSync(path.join(tmpdir(), 'hostile-tls-'));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `the https hostile IdP needs the openssl command (apt-get install -y openssl) to make its test certificate: ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
  const cert = readFileSync(certFile, 'utf8');
  const spkiDer = new X509Certificate(cert).publicKey.export({ type: 'spki', format: 'der' });
  const spki = createHash('sha256').update(spkiDer).digest('base64');
  return {
    key: readFileSync(keyFile, 'utf8'),
    cert,
    certFile,
    spki,
    chromiumWrapper() {
      const found = findChromium();
      if (!('path' in found)) throw new Error(found.missing);
      const wrapper = path.join(dir, 'chromium');
      writeFileSync(wrapper, `#!/bin/sh\nexec '${found.path}' --ignore-certificate-errors-spki-list='${spki}' "$@"\n`);
      chmodSync(wrapper, 0o755);
      return wrapper;
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** `idp-conformance init [FILE]`: writes a commented target-config template (JSONC). */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Command, UsageError, parseCommandLine } from './command.ts';
import { runCommandFor } from './hints.ts';

export const DEFAULT_TARGET_FILE = 'idp-target.jsonc';
const SCHEMA = fileURLToPath(new URL('../schema/target-config.schema.json', import.meta.url));

const USAGE = `Usage: idp-conformance init [FILE] [--force]

Writes a commented target-config template to FILE (default ${DEFAULT_TARGET_FILE}). The file is
JSON with // comments (JSONC), which the loader accepts. Fill in your IdP, then:
  idp-conformance run --target FILE

Options:
  --force     overwrite FILE if it exists
  -h, --help  show this help`;

export function template(schemaRef: string): string {
  return `// idp-conformance target config. JSON with comments; every client role is optional:
// scenarios that need a role you leave out are skipped, with the reason in the report.
// Secrets: write \${ENV_NAME} to read them from the environment (a missing variable is an error).
{
  "$schema": ${JSON.stringify(schemaRef)},

  // The issuer; discovery is fetched from {issuer}/.well-known/openid-configuration.
  "issuer": "https://idp.example",

  // "form" (application/x-www-form-urlencoded, RFC 6749) or "json" (the SPEC's token endpoint).
  "tokenRequestEncoding": "form",

  "clients": {
    // A confidential client that runs the authorization code flow (with PKCE).
    "confidential": {
      "clientId": "web-app",
      "clientSecret": "\${WEB_SECRET}",
      "redirectUri": "https://app.example/callback", // registered at the IdP; never fetched
      "scope": "openid profile email offline_access",
      "authMethod": "client_secret_basic",              // or client_secret_post
      "firstParty": true
    },
    // A public (third-party) client: no secret, PKCE required.
    "public": {
      "clientId": "spa",
      "redirectUri": "https://spa.example/callback",
      "scope": "openid profile",
      "firstParty": false
    },
    // More roles run more scenarios: uncomment those your IdP has and export the secrets they
    // name (PARTNER_SECRET, MACHINE_SECRET). Trailing commas are fine.
    // A second confidential client, for cross-client binding checks (codes, refresh tokens):
    // "confidential2": {
    //   "clientId": "partner-app",
    //   "clientSecret": "\${PARTNER_SECRET}",
    //   "redirectUri": "https://partner.example/callback",
    //   "scope": "openid profile"
    // },
    // A machine client for client_credentials:
    // "machine": { "clientId": "machine", "clientSecret": "\${MACHINE_SECRET}", "scope": "api:read" },
    // Also possible: "device" (device code grant, RFC 8628; the login driver activates it),
    // "exchange" (token exchange, RFC 8693), and "legacy": a client your IdP still allows the
    // deprecated password and implicit grants (clientSecret if confidential, redirectUri for implicit).
  },

  // A test user who can log in and consent. Never a real person's account.
  "user": { "username": "alice", "password": "\${ALICE_PASSWORD}" },

  // "form": HTTP only, fills the login form's username/password inputs and approves consent.
  // Or "browser": Chromium (CHROMIUM_PATH, else /usr/bin/chromium) for script-heavy login pages.
  // Without "steps" it fills the form that has a password input and approves by its Allow button;
  // with them it runs them from the first page (Playwright selectors):
  //   "login": { "driver": "browser", "steps": [
  //     { "fill": "#username", "value": "\${user.username}" },
  //     { "fill": "#password", "value": "\${user.password}" },
  //     { "click": "button[type=submit]" },
  //     { "click": "text=Allow", "optional": true, "decision": "approve" } ] },
  "login": { "driver": "form", "usernameField": "username", "passwordField": "password" },

  // Scenario ids whose failure you accept for now: reported, but the exit code stays 0.
  "expectedFailures": []
}
`;
}

export const initCommand: Command = {
  summary: 'write a commented target-config template',
  usage: USAGE,
  async run(argv) {
    const { values, positionals } = parseCommandLine(argv, {
      force: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    if (positionals.length > 1) throw new UsageError(`expected at most one FILE, got ${positionals.length}`);
    const file = path.resolve(positionals[0] ?? DEFAULT_TARGET_FILE);
    if (existsSync(file) && !values.force) throw new UsageError(`${file} already exists; pass --force to overwrite it`);
    await mkdir(path.dirname(file), { recursive: true });
    const schemaRef = path.relative(path.dirname(file), SCHEMA).split(path.sep).join('/');
    await writeFile(file, template(schemaRef.startsWith('.') ? schemaRef : `./${schemaRef}`));
    console.log(`Wrote ${file}. Edit it, export the secrets it names, then run:\n  ${runCommandFor(file)}`);
    return 0;
  },
};

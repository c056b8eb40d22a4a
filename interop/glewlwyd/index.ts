/**
 * Glewlwyd 2.7 (Debian's package) as an interop target: one plain process on 127.0.0.1:PORT with
 * every file under workDir (libconfig file, SQLite database, a copy of the webapp), the OIDC issuer
 * at http://127.0.0.1:PORT/api/oidc. Set up as a deployer does: the package's SQL initialises the
 * database (admin/password), and everything else goes through the admin REST API. See README.md
 * beside this file for the choices and findings.md for what the harness found.
 */
import { execFile } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import type { InteropIdp, RunningIdp } from '../idp.ts';
import {
  type Started,
  aptInstall,
  aptLine,
  freePort,
  startProcess,
  stderrOf,
  targetClients,
  waitForDiscovery,
} from '../support.ts';
import {
  ADMIN,
  GLEWLWYD,
  type GlewlwydClient,
  INIT_SQL,
  NGINX,
  NOFILE,
  PACKAGES,
  PLUGIN,
  SCOPES,
  WEBAPP,
  WEBAPP_CONFIG,
  clientBody,
  clients,
  glewlwydConf,
  nginxConf,
  oidcPlugin,
} from './config.ts';

const run = promisify(execFile);
const secret = () => randomBytes(24).toString('base64url');

export async function install(): Promise<void> {
  await aptInstall(PACKAGES);
}

/** The package's schema and admin user in a fresh SQLite file (sqlite3's CLI, a dependency of the package). */
async function initDatabase(file: string): Promise<void> {
  const sql = gunzipSync(await readFile(INIT_SQL)).toString('utf8');
  const child = run('sqlite3', ['-bail', file]);
  child.child.stdin?.end(sql);
  try {
    await child;
  } catch (error) {
    const stderr = stderrOf(error).slice(-2000);
    throw new Error(`glewlwyd: initialising ${file} from ${INIT_SQL} failed:\n${stderr}`);
  }
}

/**
 * The webapp copied with its symlinks followed (they point into other packages by relative paths),
 * and its config.json as a file (the package's is a symlink to a directory that holds it).
 */
async function copyWebapp(to: string): Promise<void> {
  await cp(WEBAPP, to, { recursive: true, dereference: true });
  await rm(join(to, 'config.json'), { recursive: true, force: true });
  await cp(WEBAPP_CONFIG, join(to, 'config.json'));
}

/** The admin REST API with the admin's session cookie. */
class Admin {
  private cookie = '';
  constructor(private readonly base: string) {}

  async signIn(): Promise<void> {
    const res = await fetch(`${this.base}/api/auth/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
      signal: AbortSignal.timeout(30_000),
    });
    const set = res.headers.getSetCookie().find((c) => c.startsWith('GLEWLWYD2_SESSION_ID='));
    if (res.status !== 200 || !set) throw new Error(`glewlwyd: admin sign-in answered HTTP ${res.status}`);
    this.cookie = set.split(';')[0]!;
  }

  async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await fetch(`${this.base}/api${path}`, {
      method,
      headers: { cookie: this.cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    if (res.status !== 200) {
      throw new Error(`glewlwyd: admin API ${method} /api${path} answered HTTP ${res.status}: ${text.slice(0, 500)}`);
    }
    const answer: unknown = text ? JSON.parse(text) : undefined;
    return answer;
  }
}

function targetConfig(issuer: string, list: GlewlwydClient[], user: { username: string; password: string }) {
  return {
    $comment: 'Glewlwyd 2.7.5 (Debian), written by interop/glewlwyd',
    issuer,
    // Its discovery lists only authorization_code, implicit and the device grant in grant_types_supported (it puts
    // password, client_credentials and refresh_token in response_types_supported): the grants this deployment's
    // clients are registered for, as a deployer who read the admin pages would state them (findings.md).
    discoveryOverrides: {
      grant_types_supported: [
        'authorization_code',
        'implicit',
        'refresh_token',
        'client_credentials',
        'password',
        'urn:ietf:params:oauth:grant-type:device_code',
      ],
    },
    tokenRequestEncoding: 'form',
    clients: targetClients(list),
    user,
    // No driver and no steps: auto, the default. The sign-in, grant and continue pages are rendered by
    // script (a single-page app), so those walks go on in Chromium without being told how.
    // Generous: a walk is a single-page app in Chromium, and redirect.exact-match walks it for each of its near misses
    // (Glewlwyd asks for the sign-in before it looks at the redirect_uri).
    timeouts: { scenarioMs: 600_000, requestMs: 30_000 },
    expectedFailures: [],
  };
}

export async function start(options: {
  port: number;
  workDir: string;
  log?: (line: string) => void;
}): Promise<RunningIdp> {
  const { port, log } = options;
  for (const file of [GLEWLWYD, NGINX]) {
    if (!existsSync(file)) throw new Error(`glewlwyd: ${file} is missing; as root run: ${aptLine(PACKAGES)}`);
  }
  const workDir = resolve(options.workDir);
  const base = `http://127.0.0.1:${port}`;
  const issuer = `${base}/api/${PLUGIN}`;
  await mkdir(workDir, { recursive: true, mode: 0o700 });
  const database = join(workDir, 'glewlwyd.sqlite3');
  const webapp = join(workDir, 'webapp');
  const confFile = join(workDir, 'glewlwyd.conf');
  const nginxDir = join(workDir, 'nginx');
  await rm(database, { force: true });
  await rm(webapp, { recursive: true, force: true });
  await rm(nginxDir, { recursive: true, force: true });
  await initDatabase(database);
  await copyWebapp(webapp);
  const apiPort = await freePort();
  await writeFile(confFile, glewlwydConf({ port, apiPort, database }), { mode: 0o600 });
  await mkdir(join(nginxDir, 'temp'), { recursive: true });
  const nginxConfFile = join(nginxDir, 'nginx.conf');
  // As root, nginx's workers run as www-data: they must reach the web app (the work folder is mode 0700).
  const root = process.getuid?.() === 0;
  if (root) await chmod(workDir, 0o711);
  await writeFile(
    nginxConfFile,
    nginxConf({ port, apiPort, webapp, dir: nginxDir, ...(root ? { user: 'www-data' } : {}) }),
  );

  // prlimit: a deployer's raised descriptor limit (config.ts NOFILE); the server itself is argv, no shell.
  const server = startProcess('prlimit', [`--nofile=${NOFILE}:${NOFILE}`, '--', GLEWLWYD, '-c', confFile], {
    name: 'glewlwyd',
    cwd: workDir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    ...(log ? { log } : {}),
  });
  let nginx: Started | undefined;
  const stop = async () => {
    // nginx first (no new requests), then Glewlwyd; its master stops its worker and exits after it.
    await nginx?.stop();
    await server.stop();
  };
  try {
    // The API answers before any plugin exists: wait for it, then configure, then wait for discovery.
    await waitForDiscovery(`http://127.0.0.1:${apiPort}/config/`, server, 60_000);
    nginx = startProcess(
      NGINX,
      ['-p', nginxDir, '-c', nginxConfFile, '-e', join(nginxDir, 'error.log'), '-g', 'daemon off;'],
      {
        name: 'nginx',
        cwd: workDir,
        ...(log ? { log } : {}),
      },
    );
    await waitForDiscovery(`${base}/config/`, nginx, 60_000);
    const admin = new Admin(base);
    await admin.signIn();
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    await admin.call(
      'POST',
      '/mod/plugin/',
      oidcPlugin({
        issuer,
        privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      }),
    );
    for (const s of SCOPES) {
      await admin.call('POST', '/scope/', {
        name: s.name,
        display_name: s.name,
        description: s.description,
        password_required: true,
        password_max_age: 0,
        scheme: {},
      });
    }
    const user = { username: 'alice', password: secret() };
    await admin.call('POST', '/user/', {
      username: user.username,
      password: user.password,
      name: 'Alice Example',
      email: 'alice@example.test',
      scope: ['openid', 'profile', 'email'],
      enabled: true,
    });
    const list = clients(secret);
    for (const c of list) await admin.call('POST', '/client/', clientBody(c));
    await waitForDiscovery(`${issuer}/.well-known/openid-configuration`, server, 60_000);
    return { targetConfig: targetConfig(issuer, list, user), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

const glewlwyd: InteropIdp = {
  name: 'glewlwyd',
  install,
  start,
  // findings.md, "Overlapping requests": on its SQLite database Glewlwyd 2.7.5 shares one connection between the
  // requests it serves at once and reads back the id of the row it just inserted from that connection, so two token
  // or authorization requests that overlap attach their scopes to each other's rows or fail ("FOREIGN KEY constraint
  // failed", HTTP 500). Four scenarios at a time made a different set-up step fail with a 500 in about one run of two.
  // What docs/login.md has a deployer write for Glewlwyd's sign-in page; they do not fit its signed-in page.
  signInSteps: [
    { fill: '#username', value: '${user.username}' },
    { fill: '#password', value: '${user.password}' },
    { click: '#loginbut' },
  ],
  concurrency: {
    scenarios: 1,
    why:
      'overlapping requests break each other on its SQLite database (the last inserted row id is read from one ' +
      'shared connection: FOREIGN KEY constraint failed, HTTP 500)',
  },
};
export default glewlwyd;

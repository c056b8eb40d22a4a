/**
 * LemonLDAP::NG 2.16 (Debian's packages) as an interop target: nginx-light in front of
 * llng-fastcgi-server, both plain processes with every file under workDir, the portal and OIDC
 * issuer at http://127.0.0.1:PORT. See README.md beside this file and config.ts for the choices.
 */
import { execFile } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { InteropIdp, RunningIdp } from '../idp.ts';
import { stderrOf, targetClients } from '../support.ts';
import {
  type LlngClient,
  type LlngPaths,
  PACKAGES,
  type SigningKey,
  DEMO_USER,
  TEST_USER,
  USERS_TABLE,
  lemonldapIni,
  lmConf,
  nginxConf,
  sqliteDsn,
} from './config.ts';
import { type Started, startProcess, stopProcess } from './process.ts';

const run = promisify(execFile);

/** A running LemonLDAP::NG, with the PIDs of the processes it started (nginx's master, the FastCGI manager). */
export interface RunningLemonldapNg extends RunningIdp {
  pids(): number[];
}

const APT_LINE = `apt-get install -y ${PACKAGES.join(' ')}`;
const FASTCGI_SERVER = '/usr/sbin/llng-fastcgi-server';
const NGINX = '/usr/sbin/nginx';
/** The unprivileged account Debian's packages run LemonLDAP::NG and nginx's workers as. */
const SERVICE_USER = 'www-data';
const STARTUP_MS = 90_000;

const isRoot = () => process.getuid?.() === 0;

/** The packages dpkg does not report as installed. */
export async function missingPackages(): Promise<string[]> {
  const missing: string[] = [];
  for (const pkg of PACKAGES) {
    try {
      const { stdout } = await run('dpkg-query', ['-W', '-f=${Status}', pkg]);
      if (!/install ok installed/.test(stdout)) missing.push(pkg);
    } catch {
      missing.push(pkg);
    }
  }
  return missing;
}

export async function install(): Promise<void> {
  const missing = await missingPackages();
  if (!missing.length) return;
  if (!isRoot()) {
    throw new Error(`lemonldap-ng: Debian packages missing (${missing.join(', ')}); as root run: ${APT_LINE}`);
  }
  try {
    await run('apt-get', ['install', '-y', '-o', 'DPkg::Lock::Timeout=600', ...PACKAGES], {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const stderr = stderrOf(error).slice(-2000);
    throw new Error(
      `lemonldap-ng: \`${APT_LINE}\` failed (run \`apt-get update\` first if packages were not found):\n${stderr}`,
    );
  }
}

function secret(): string {
  return randomBytes(24).toString('base64url');
}

function signingKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    kid: `rs256-${randomBytes(6).toString('hex')}`,
    privatePem: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** The relying parties, with fresh secrets and exact redirect URIs on 127.0.0.1:port+1 (never served). */
function clients(port: number): LlngClient[] {
  const redirect = (role: string) => `http://127.0.0.1:${port + 1}/${role}/cb`;
  return [
    {
      role: 'confidential',
      clientId: 'confidential',
      clientSecret: secret(),
      redirectUri: redirect('confidential'),
      firstParty: true,
      scope: 'openid profile email offline_access',
    },
    {
      role: 'confidential2',
      clientId: 'confidential2',
      clientSecret: secret(),
      redirectUri: redirect('confidential2'),
      firstParty: true,
      scope: 'openid profile email offline_access',
    },
    {
      role: 'public',
      clientId: 'public',
      redirectUri: redirect('public'),
      firstParty: false,
      scope: 'openid profile email',
    },
    { role: 'machine', clientId: 'machine', clientSecret: secret(), firstParty: true, scope: 'api:read' },
    { role: 'legacy', clientId: 'legacy', clientSecret: secret(), firstParty: true, scope: 'openid profile' },
  ];
}

/**
 * Creates the users table DBI authentication reads, with the one test user, in a fresh SQLite file
 * (mode 0600). Perl's DBI and DBD::SQLite (the packages' own) write it; the row goes in on stdin
 * as JSON, so the password is never on a command line.
 */
async function createUsersDb(file: string, row: UserRow): Promise<void> {
  await writeFile(file, '', { mode: 0o600 });
  const script =
    `use strict; use warnings; use DBI; use JSON::PP;
my $in = JSON::PP->new->utf8->decode(do { local $/; <STDIN> });
my $dbh = DBI->connect($in->{dsn}, '', '', { RaiseError => 1, PrintError => 0, ShowErrorStatement => 0, AutoCommit ` +
    `=> 1 });
$dbh->do("CREATE TABLE $in->{table} (uid TEXT PRIMARY KEY NOT NULL, password TEXT NOT NULL, cn TEXT NOT NULL, mail ` +
    `TEXT NOT NULL)");
$dbh->do("INSERT INTO $in->{table} (uid, password, cn, mail) VALUES (?, ?, ?, ?)", undef, @{$in->{row}}{qw(uid ` +
    `password cn mail)});
$dbh->disconnect;`;
  const child = run('perl', ['-e', script], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  child.child.stdin?.end(JSON.stringify({ dsn: sqliteDsn(file), table: USERS_TABLE, row }));
  try {
    await child;
  } catch (error) {
    const stderr = stderrOf(error).slice(-2000);
    throw new Error(
      `lemonldap-ng: creating the users database ${file} failed (is libdbd-sqlite3-perl installed?):\n${stderr}`,
    );
  }
}

interface UserRow {
  uid: string;
  cn: string;
  mail: string;
  password: string;
}

function targetConfig(issuer: string, list: LlngClient[], user: UserRow): Record<string, unknown> {
  return {
    $comment: 'LemonLDAP::NG 2.16 (Debian), written by interop/lemonldap-ng',
    issuer,
    tokenRequestEncoding: 'form',
    clients: targetClients(list),
    user: { username: user.uid, password: user.password },
    // No driver named: auto, the default; it goes on in the browser for the consent page's Refuse (BROWSER_PASS).
    login: { usernameField: 'user', passwordField: 'password' },
    // A Perl portal with 4 FastCGI workers: a property scenario's hundreds of requests (e.g.
    // redirect.exact-match) took 21–33 s on a loaded 2-core machine, past the 30 s default.
    timeouts: { scenarioMs: 120_000, requestMs: 30_000 },
    expectedFailures: [],
  };
}

/**
 * When running as root the FastCGI server drops to www-data (it refuses to run as root): every
 * directory above workDir must let it through.
 */
async function checkTraversable(dir: string): Promise<void> {
  for (let d = dirname(dir); ; d = dirname(d)) {
    const { mode } = await stat(d);
    if (!(mode & 0o001)) {
      throw new Error(
        `lemonldap-ng: ${d} is not searchable by others, so ${SERVICE_USER} cannot reach ${dir}; use a ` +
          `workDir under /tmp`,
      );
    }
    if (d === dirname(d)) return;
  }
}

async function ownedByService(paths: string[]): Promise<void> {
  if (!isRoot()) return;
  const { stdout } = await run('id', ['-u', SERVICE_USER]);
  const { stdout: gid } = await run('id', ['-g', SERVICE_USER]);
  for (const p of paths) await chown(p, Number(stdout.trim()), Number(gid.trim()));
}

async function tail(file: string, lines = 20): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.split('\n').slice(-lines).join('\n');
}

/** Polls until `ready` or a process exits or the time is up. */
async function waitFor(
  what: string,
  ready: () => Promise<boolean>,
  processes: Started[],
  logFiles: string[],
): Promise<void> {
  const deadline = Date.now() + STARTUP_MS;
  let exited: string | undefined;
  for (const p of processes)
    void p.exited.then((how) => {
      exited ??= `${p.name} exited (${how})`;
    });
  while (Date.now() < deadline) {
    if (await ready()) return;
    if (exited) break;
    await sleep(200);
  }
  const logs = (await Promise.all(logFiles.map(async (f) => `--- ${f}\n${await tail(f)}`))).join('\n');
  throw new Error(`lemonldap-ng: ${exited ?? `timed out after ${STARTUP_MS} ms`} waiting for ${what}\n${logs}`);
}

async function discoveryAnswers(issuer: string): Promise<boolean> {
  try {
    const res = await fetch(`${issuer}/.well-known/openid-configuration`, {
      signal: AbortSignal.timeout(5000),
      redirect: 'manual',
    });
    if (res.status !== 200) return false;
    const body: unknown = await res.json();
    return typeof body === 'object' && body !== null && 'issuer' in body && body.issuer === issuer;
  } catch {
    return false;
  }
}

export async function start(options: {
  port: number;
  workDir: string;
  log?: (line: string) => void;
  /** Sign in as LLNG's Demo user dwho/dwho (a 4-character password) instead of a random 24-character one. */
  demoUser?: boolean;
}): Promise<RunningLemonldapNg> {
  const { port, log } = options;
  for (const file of [FASTCGI_SERVER, NGINX]) {
    if (!existsSync(file)) throw new Error(`lemonldap-ng: ${file} is missing; as root run: ${APT_LINE}`);
  }
  const workDir = resolve(options.workDir);
  const issuer = `http://127.0.0.1:${port}`;
  const llngDir = join(workDir, 'llng');
  const runDir = join(workDir, 'run');
  const nginxDir = join(workDir, 'nginx');
  const paths: LlngPaths = {
    confDir: join(llngDir, 'conf'),
    sessionsDir: join(llngDir, 'sessions'),
    psessionsDir: join(llngDir, 'psessions'),
    cacheDir: join(llngDir, 'cache'),
    socket: join(runDir, 'llng-fastcgi.sock'),
    nginxPid: join(runDir, 'nginx.pid'),
    nginxAccessLog: join(nginxDir, 'access.log'),
    nginxErrorLog: join(nginxDir, 'error.log'),
    nginxTempDir: join(nginxDir, 'temp'),
    usersDb: join(llngDir, 'users.sqlite'),
  };
  // Fresh every start: no sessions, codes or keys survive from an earlier run.
  await rm(llngDir, { recursive: true, force: true });
  await rm(runDir, { recursive: true, force: true });
  await rm(nginxDir, { recursive: true, force: true });
  const dirs = [
    llngDir,
    paths.confDir,
    paths.sessionsDir,
    `${paths.sessionsDir}/lock`,
    paths.psessionsDir,
    `${paths.psessionsDir}/lock`,
    paths.cacheDir,
    runDir,
  ];
  for (const d of dirs) await mkdir(d, { recursive: true, mode: 0o700 });
  // nginx's workers (www-data when started as root) buffer large request bodies under temp/.
  for (const d of [nginxDir, paths.nginxTempDir]) await mkdir(d, { recursive: true, mode: 0o711 });
  if (isRoot()) {
    await checkTraversable(workDir);
    await chmod(workDir, 0o711);
  }

  const list = clients(port);
  const key = signingKey();
  // The test user: a password fresh per start, 24 characters; or the Demo user dwho/dwho.
  const user: UserRow = options.demoUser ? { ...DEMO_USER } : { ...TEST_USER, password: secret() };
  await createUsersDb(paths.usersDb, user);
  const iniFile = join(paths.confDir, 'lemonldap-ng.ini');
  const confFile = join(paths.confDir, 'lmConf-1.json');
  await writeFile(confFile, `${JSON.stringify(lmConf({ issuer, paths, key, clients: list }), null, 2)}\n`, {
    mode: 0o600,
  });
  await writeFile(iniFile, lemonldapIni(paths), { mode: 0o600 });
  const nginxConfFile = join(nginxDir, 'nginx.conf');
  await writeFile(nginxConfFile, nginxConf({ port, paths, ...(isRoot() ? { user: SERVICE_USER } : {}) }));
  await ownedByService([...dirs, confFile, iniFile, paths.usersDb]);

  const llngLog = join(workDir, 'llng-fastcgi-server.log');
  const started: Started[] = [];
  // If this Node process ends without stop() (a crashed test run), do not leave the servers behind.
  const onExit = () => {
    for (const p of started) p.child.kill('SIGTERM');
  };
  process.on('exit', onExit);
  const stop = async () => {
    // nginx first (no new requests), then the portal.
    for (const p of [...started].reverse()) await stopProcess(p);
    process.off('exit', onExit);
  };
  try {
    started.push(
      startProcess({
        name: 'llng-fastcgi-server',
        command: FASTCGI_SERVER,
        args: [
          '--foreground',
          '--socket',
          paths.socket,
          '--pid',
          join(runDir, 'llng-fastcgi-server.pid'),
          '--proc',
          '4',
          ...(isRoot() ? ['--user', SERVICE_USER, '--group', SERVICE_USER] : []),
        ],
        env: {
          PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin',
          LLNG_DEFAULTCONFFILE: iniFile,
          LLNG_DEFAULTLOGGER: 'Lemonldap::NG::Common::Logger::Std',
        },
        logFile: llngLog,
        ...(log ? { log } : {}),
      }),
    );
    await waitFor('the FastCGI socket', async () => existsSync(paths.socket), started, [llngLog]);
    const nginxLog = join(nginxDir, 'stderr.log');
    started.push(
      startProcess({
        name: 'nginx',
        command: NGINX,
        args: ['-p', nginxDir, '-c', nginxConfFile, '-e', paths.nginxErrorLog, '-g', 'daemon off;'],
        logFile: nginxLog,
        ...(log ? { log } : {}),
      }),
    );
    await waitFor(`discovery at ${issuer}/.well-known/openid-configuration`, () => discoveryAnswers(issuer), started, [
      llngLog,
      nginxLog,
      paths.nginxErrorLog,
    ]);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    targetConfig: targetConfig(issuer, list, user),
    stop,
    pids: () => started.flatMap((p) => (p.child.pid === undefined ? [] : [p.child.pid])),
  };
}

/**
 * The third-party consent page's "Refuse" submits the same unnamed form as "Accept"; a script
 * (confirm.js) turns the form's `confirm` stamp negative when Refuse is clicked. The form driver
 * approves (Accept is the form's default button: the form as served is the approval) but never
 * denies there, so with `--driver form` the one scenario that denies runs again through the
 * browser driver. The auto driver (the default) needs no second pass: it clicks Refuse in Chromium
 * from the same page. The whole catalog through the browser would take about six times as long.
 */
const BROWSER_PASS = {
  scenarios: ['authorize.user-denies'],
  why: 'the consent page\'s "Refuse" works by script (confirm.js sets the confirm stamp negative)',
};

const lemonldapNg: InteropIdp = { name: 'lemonldap-ng', install, start, browserPass: BROWSER_PASS };
export default lemonldapNg;

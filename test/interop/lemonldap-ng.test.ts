/**
 * The LemonLDAP::NG 2.16 interop module against the real Debian packages: install (as root),
 * start on 127.0.0.1, discovery, one authorization code + PKCE login through the form driver,
 * stop by PID. Skipped, saying why, when the packages are missing and we cannot install them.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformance, validateConfig } from '../../index.ts';
import lemonldapNg, { type RunningLemonldapNg, start } from '../../interop/lemonldap-ng/index.ts';
import { childPids } from '../../interop/lemonldap-ng/process.ts';
import { PACKAGES, lmConf } from '../../interop/lemonldap-ng/config.ts';
import { closedPort } from '../support/ports.ts';

function missing(): string[] {
  return PACKAGES.filter((pkg) => {
    try {
      return !/install ok installed/.test(
        execFileSync('dpkg-query', ['-W', '-f=${Status}', pkg], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
        }),
      );
    } catch {
      return true;
    }
  });
}

const absent = missing();
const root = process.getuid?.() === 0;
const skipReason =
  absent.length && !root
    ? `skipped: Debian packages missing (${absent.join(', ')}) and not root; run as root: apt-get install ` +
      `-y ${PACKAGES.join(' ')}`
    : '';

describe('LemonLDAP::NG configuration (no packages needed)', () => {
  const paths = {
    confDir: '/w/conf',
    sessionsDir: '/w/s',
    psessionsDir: '/w/p',
    cacheDir: '/w/c',
    socket: '/w/sock',
    nginxPid: '/w/pid',
    nginxAccessLog: '/w/a',
    nginxErrorLog: '/w/e',
    nginxTempDir: '/w/t',
    usersDb: '/w/users.sqlite',
  };
  const conf = lmConf({
    issuer: 'http://127.0.0.1:9000',
    paths,
    key: { kid: 'k1', privatePem: 'PRIVATE', publicPem: 'PUBLIC' },
    clients: [
      {
        role: 'confidential',
        clientId: 'c',
        clientSecret: 's',
        redirectUri: 'http://127.0.0.1:9001/c/cb',
        firstParty: true,
        scope: 'openid',
      },
      { role: 'public', clientId: 'p', redirectUri: 'http://127.0.0.1:9001/p/cb', firstParty: false, scope: 'openid' },
      { role: 'machine', clientId: 'm', clientSecret: 's2', firstParty: true, scope: '' },
    ],
  });
  const rp = (role: string) => (conf.oidcRPMetaDataOptions as Record<string, Record<string, unknown>>)[role]!;

  it(
    'requires PKCE of every code-flow client, asks consent only of the third-party one, and issues no refresh ' +
      'token to the public client',
    () => {
      expect(rp('confidential')).toMatchObject({
        oidcRPMetaDataOptionsRequirePKCE: 1,
        oidcRPMetaDataOptionsBypassConsent: 1,
        oidcRPMetaDataOptionsAllowOffline: 1,
        oidcRPMetaDataOptionsPublic: 0,
      });
      expect(rp('public')).toMatchObject({
        oidcRPMetaDataOptionsRequirePKCE: 1,
        oidcRPMetaDataOptionsBypassConsent: 0,
        oidcRPMetaDataOptionsAllowOffline: 0,
        oidcRPMetaDataOptionsPublic: 1,
      });
      expect(rp('public').oidcRPMetaDataOptionsAccessTokenExpiration).toBeLessThan(
        rp('confidential').oidcRPMetaDataOptionsAccessTokenExpiration as number,
      );
      expect(rp('machine')).toMatchObject({
        oidcRPMetaDataOptionsAllowClientCredentialsGrant: 1,
        oidcRPMetaDataOptionsAllowPasswordGrant: 0,
      });
      expect(rp('machine')).not.toHaveProperty('oidcRPMetaDataOptionsRedirectUris');
    },
  );

  it('turns off implicit, hybrid and dynamic registration, and sets registerDB to Null', () => {
    expect(conf).toMatchObject({
      oidcServiceAllowImplicitFlow: 0,
      oidcServiceAllowHybridFlow: 0,
      oidcServiceAllowDynamicRegistration: 0,
      registerDB: 'Null',
      oidcServiceMetaDataIssuer: 'http://127.0.0.1:9000',
      portal: 'http://127.0.0.1:9000/',
    });
  });

  it('authenticates and reads users from the SQLite users table, the claims from its columns', () => {
    expect(conf).toMatchObject({
      authentication: 'DBI',
      userDB: 'Same',
      passwordDB: 'Null',
      dbiAuthChain: 'dbi:SQLite:dbname=/w/users.sqlite',
      dbiAuthTable: 'users',
      dbiAuthLoginCol: 'uid',
      dbiAuthPasswordCol: 'password',
      dbiExportedVars: { uid: 'uid', cn: 'cn', mail: 'mail' },
    });
    expect((conf.oidcRPMetaDataExportedVars as Record<string, unknown>).confidential).toEqual({
      preferred_username: 'uid',
      name: 'cn',
      email: 'mail',
    });
    expect(() =>
      lmConf({
        issuer: 'http://127.0.0.1:9000',
        paths: { ...paths, usersDb: '/w/a;b' },
        key: { kid: 'k', privatePem: '', publicPem: '' },
        clients: [],
      }),
    ).toThrow(/must not contain/);
  });
});

describe.skipIf(Boolean(skipReason))(`LemonLDAP::NG 2.16 from Debian${skipReason ? ` (${skipReason})` : ''}`, () => {
  let running: RunningLemonldapNg;
  let workDir: string;
  let issuer: string;

  beforeAll(async () => {
    await lemonldapNg.install();
    workDir = await mkdtemp(join(tmpdir(), 'interop-llng-'));
    const port = await closedPort();
    running = await start({ port, workDir });
    issuer = `http://127.0.0.1:${port}`;
  }, 900_000);

  afterAll(async () => {
    await running?.stop();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  }, 60_000);

  it('answers discovery with its issuer and publishes an RS256 key', async () => {
    expect(lemonldapNg.name).toBe('lemonldap-ng');
    const config = validateConfig(running.targetConfig);
    expect(config.issuer).toBe(issuer);
    const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    expect(discovery.issuer).toBe(issuer);
    expect(discovery.authorization_endpoint).toBe(`${issuer}/oauth2/authorize`);
    // The fresh key of this start: one RSA signing key (LemonLDAP::NG 2.16 puts no "alg" in its JWKS).
    const jwks = (await (await fetch(String(discovery.jwks_uri))).json()) as { keys: { kty: string; kid?: string }[] };
    expect(jwks.keys).toEqual([
      expect.objectContaining({ kty: 'RSA', use: 'sig', kid: expect.stringMatching(/^rs256-[0-9a-f]{12}$/) }),
    ]);
    expect(discovery.id_token_signing_alg_values_supported).toContain('RS256');
  });

  it('completes an authorization code + PKCE login through the form driver', async () => {
    const report = await runConformance({
      target: validateConfig(running.targetConfig),
      only: ['code.happy-path', 'discovery.document'],
    });
    expect(report.results.map((r) => [r.id, r.status, r.message ?? ''])).toEqual(
      expect.arrayContaining([
        ['code.happy-path', 'passed', ''],
        ['discovery.document', 'passed', ''],
      ]),
    );
    expect(report.results).toHaveLength(2);
  }, 120_000);

  it("logs in the users table's test user (password of 24 characters) and refuses a wrong password", async () => {
    const config = validateConfig(running.targetConfig);
    expect(config.user?.username).toBe('interop');
    expect(config.user?.password.length).toBeGreaterThanOrEqual(24);
    // The portal's own login form (its anti-CSRF token is one use): does it set an SSO cookie?
    const sso = async (password: string) => {
      const form = await fetch(`${issuer}/`);
      const token = /name="token" value="([^"]+)"/.exec(await form.text())?.[1];
      expect(token).toBeDefined();
      const res = await fetch(`${issuer}/`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ user: 'interop', password, token: token ?? '' }).toString(),
      });
      await res.arrayBuffer();
      return res.headers.getSetCookie().some((c) => /^lemonldap=[0-9a-f]{16,}/.test(c));
    };
    expect(await sso(config.user!.password)).toBe(true);
    expect(await sso(`${config.user!.password}x`)).toBe(false);
  }, 60_000);

  it('stops every process it started, by PID', async () => {
    const nginxPid = Number((await readFile(join(workDir, 'run', 'nginx.pid'), 'utf8')).trim());
    const started = running.pids();
    expect(started).toHaveLength(2);
    expect(started).toContain(nginxPid);
    // The FastCGI manager's workers and nginx's worker must go too.
    const children = (await Promise.all(started.map(childPids))).flat();
    expect(children.length).toBeGreaterThanOrEqual(2);
    const pids = [...started, ...children];
    await running.stop();
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
    await expect(fetch(`${issuer}/.well-known/openid-configuration`)).rejects.toThrow();
  }, 60_000);
});

describe.skipIf(Boolean(skipReason))('LemonLDAP::NG with its Demo user dwho/dwho (a 4-character password)', () => {
  let running: RunningLemonldapNg;
  let workDir: string;

  beforeAll(async () => {
    await lemonldapNg.install();
    workDir = await mkdtemp(join(tmpdir(), 'interop-llng-demo-'));
    running = await start({ port: await closedPort(), workDir, demoUser: true });
  }, 900_000);

  afterAll(async () => {
    await running?.stop();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  }, 60_000);

  it('runs with a warning, signs in, and never writes the password where the harness sent it', async () => {
    const config = validateConfig(running.targetConfig);
    expect(config.user).toEqual({ username: 'dwho', password: 'dwho' });
    const reportDir = await mkdtemp(join(tmpdir(), 'interop-llng-demo-report-'));
    try {
      const report = await runConformance({
        target: config,
        only: ['code.happy-path', 'client-auth.bad-secret'],
        reportDir,
        formats: ['json', 'html'],
      });
      expect(report.results.map((r) => [r.id, r.status])).toEqual(
        expect.arrayContaining([
          ['code.happy-path', 'passed'],
          ['client-auth.bad-secret', 'passed'],
        ]),
      );
      expect(report.notices?.join('\n')).toMatch(/user\.password is shorter than 8 characters/);
      for (const file of ['report.json', 'report.html']) {
        const text = await readFile(join(reportDir, file), 'utf8');
        // The sign-in form the harness posted: the password field is masked (the login is the same word,
        // so the user field is too: a short value is masked wherever it is a whole form field).
        expect(text).toMatch(/password=\[REDACTED:/);
        expect(text).not.toMatch(/password=dwho/);
      }
    } finally {
      await rm(reportDir, { recursive: true, force: true });
    }
  }, 300_000);
});

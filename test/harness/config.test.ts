import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSecrets, loadTarget, resolveClients, validateConfig } from '../../harness/config/load.ts';
import { parseJsonc } from '../../harness/config/jsonc.ts';
import { ConfigError } from '../../harness/model/failures.ts';

const base = {
  issuer: 'https://idp.example',
  clients: {
    confidential: { clientId: 'web', clientSecret: 's3cret-value', redirectUri: 'https://app.example/cb' },
  },
};

function issuesOf(raw: unknown, env: NodeJS.ProcessEnv = {}): string[] {
  try {
    validateConfig(raw, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues;
  }
  throw new Error('expected a ConfigError');
}

describe('target config validation', () => {
  it('accepts a minimal config and fills the defaults', () => {
    const config = validateConfig({ issuer: 'https://idp.example' }, {});
    expect(config).toEqual({
      issuer: 'https://idp.example',
      tokenRequestEncoding: 'form',
      clients: {},
      login: { driver: 'auto', usernameField: 'username', passwordField: 'password' },
      expectedFailures: [],
      allowedOrigins: [],
    });
  });

  it('takes more test users (users) beside user: each another account, their passwords secrets', () => {
    const users = [{ username: 'bob', password: 'bob-password-1' }];
    const config = validateConfig({ ...base, user: { username: 'alice', password: 'alice-password' }, users }, {});
    expect(config.users).toEqual(users);
    expect(
      configSecrets(config)
        .filter((s) => s.kind === 'password')
        .map((s) => s.value),
    ).toEqual(['alice-password', 'bob-password-1']);
    expect(issuesOf({ ...base, users })).toEqual([
      'users: are the users besides "user"; set "user" first (the user every scenario can act as)',
    ]);
    expect(
      issuesOf({ ...base, user: { username: 'bob', password: 'other-password' }, users: [...users, users[0]] }),
    ).toEqual([
      'users[0].username: "bob" is named twice: each user of "user" and "users" must be another account',
      'users[1].username: "bob" is named twice: each user of "user" and "users" must be another account',
    ]);
  });

  it('takes a login without a driver for the auto driver, the default, with its fields', () => {
    const config = validateConfig({ issuer: 'https://idp.example', login: { usernameField: 'user' } }, {});
    expect(config.login).toEqual({ driver: 'auto', usernameField: 'user', passwordField: 'password' });
  });

  it('resolves client defaults: auth method from the secret, scope by role', () => {
    const clients = resolveClients(
      validateConfig(
        {
          ...base,
          clients: {
            ...base.clients,
            machine: { clientId: 'm', clientSecret: 'machine-secret' },
            public: { clientId: 'p', redirectUri: 'https://p.example/cb' },
          },
        },
        {},
      ),
    );
    expect(clients.confidential).toMatchObject({ authMethod: 'client_secret_basic', scope: 'openid' });
    expect(clients.machine).toMatchObject({ authMethod: 'client_secret_basic', scope: '' });
    expect(clients.public).toMatchObject({ authMethod: 'none', scope: 'openid' });
  });

  it(
    'accepts a legacy client (password and implicit grants), public or confidential, with or without a ' +
      'redirect URI',
    () => {
      const legacy = {
        clientId: 'old-app',
        clientSecret: 'old-secret',
        redirectUri: 'https://old.example/cb',
        scope: 'openid profile',
      };
      // The config states the scope: a fact, not marked scopeGuessed.
      expect(resolveClients(validateConfig({ ...base, clients: { legacy } }, {})).legacy).toEqual({
        role: 'legacy',
        ...legacy,
        authMethod: 'client_secret_basic',
      });
      expect(
        resolveClients(validateConfig({ ...base, clients: { legacy: { clientId: 'spa-old' } } }, {})).legacy,
      ).toEqual({ role: 'legacy', clientId: 'spa-old', scope: 'openid', scopeGuessed: true, authMethod: 'none' });
      expect(
        issuesOf({ ...base, clients: { legacy: { clientId: 'x', clientSecret: 's-secret-1', authMethod: 'none' } } }),
      ).toEqual([
        'clients.legacy.authMethod: "none" sends no secret but clientSecret is set; use "client_secret_basic" or ' +
          '"client_secret_post", or remove the secret',
      ]);
    },
  );

  it("takes the form driver's User-Agent (login.userAgent) and names the field of one that is no header value", () => {
    const config = validateConfig({ ...base, login: { driver: 'form', userAgent: 'Mozilla/5.0 (test)' } }, {});
    expect(config.login).toMatchObject({ driver: 'form', userAgent: 'Mozilla/5.0 (test)' });
    expect(issuesOf({ ...base, login: { driver: 'form', userAgent: 'Agent\nInjected: 1' } })).toEqual([
      'login.userAgent: must be printable ASCII (an HTTP header value)',
    ]);
  });

  it('names the field and the fix for a relative redirect URI', () => {
    expect(
      issuesOf({ ...base, clients: { confidential: { ...base.clients.confidential, redirectUri: '/callback' } } }),
    ).toEqual(['clients.confidential.redirectUri: must be an absolute URL, e.g. "https://app.example/callback"']);
  });

  it('names a missing or malformed issuer', () => {
    expect(issuesOf({ clients: {} })).toEqual(['issuer: is required, e.g. "https://idp.example"']);
    expect(issuesOf({ issuer: 'idp.example' })).toEqual([
      'issuer: must be an absolute http(s) URL, e.g. "https://idp.example"',
    ]);
    expect(issuesOf({ issuer: 42 })).toEqual(['issuer: must be a string, e.g. "https://idp.example"']);
  });

  it('suggests the closest known field for a misspelt one', () => {
    expect(issuesOf({ ...base, clients: { confidental: base.clients.confidential } })).toEqual([
      'clients.confidental: unknown field; did you mean "confidential"? Known fields: confidential, confidential2, ' +
        'public, machine, device, exchange, legacy, keyed',
    ]);
    expect(issuesOf({ ...base, clients: { confidential: { ...base.clients.confidential, secret: 'x' } } })[0]).toMatch(
      /^clients\.confidential\.secret: unknown field; did you mean "clientSecret"\?/,
    );
    expect(issuesOf({ ...base, isuer: 'x' })[0]).toMatch(/^isuer: unknown field; did you mean "issuer"\?/);
  });

  it('checks role rules: secrets for confidential roles, none for public, redirect URIs for code flows', () => {
    expect(issuesOf({ issuer: base.issuer, clients: { machine: { clientId: 'm' } } })).toEqual([
      'clients.machine.clientSecret: is required for the machine role (a confidential client), e.g. ' +
        '"${MACHINE_SECRET}"',
    ]);
    expect(
      issuesOf({ issuer: base.issuer, clients: { machine: { clientId: 'm', authMethod: 'client_secret_basic' } } }),
    ).toHaveLength(1);
    expect(
      issuesOf({
        issuer: base.issuer,
        clients: { public: { clientId: 'p', clientSecret: 'oops-secret', redirectUri: 'https://p.example/cb' } },
      }),
    ).toEqual([
      'clients.public.clientSecret: a public client has no secret; remove it (a client with a secret belongs in ' +
        '"confidential")',
    ]);
    expect(
      issuesOf({ issuer: base.issuer, clients: { confidential: { clientId: 'w', clientSecret: 'secret-w' } } }),
    ).toEqual([
      'clients.confidential.redirectUri: is required for the confidential role (it runs the authorization code ' +
        'flow), e.g. "https://app.example/callback"',
    ]);
    expect(
      issuesOf({ issuer: base.issuer, clients: { device: { clientId: 'd', authMethod: 'client_secret_post' } } }),
    ).toEqual(['clients.device.authMethod: "client_secret_post" needs a clientSecret; add one or use "none"']);
    // A confidential client may prove itself with its key instead of a secret (private_key_jwt, as FAPI 2.0 asks).
    const jwk = {
      kty: 'EC',
      crv: 'P-256',
      x: 'czLRmqm1RQfnO_nNLxApKc4vql3scLO6lhqxTTyweQ8',
      y: 'EdReB_6vDJywiPnr6sx2lnjsuERRmibGuASHDeqyBpA',
      d: 'cLJuwz0I0o36hGsJX3r51FcGMW3ZsONYVB94GXut224',
    };
    const keyed = {
      clientId: 'p2',
      authMethod: 'private_key_jwt',
      privateJwk: jwk,
      redirectUri: 'https://p.example/cb',
    };
    expect(
      validateConfig({ issuer: base.issuer, clients: { confidential2: keyed } }, {}).clients.confidential2,
    ).toEqual(expect.objectContaining({ authMethod: 'private_key_jwt', privateJwk: jwk }));
  });

  it('lists the allowed values of enums and the login driver', () => {
    expect(
      issuesOf({ ...base, clients: { confidential: { ...base.clients.confidential, authMethod: 'tls_client_auth' } } }),
    ).toEqual([
      'clients.confidential.authMethod: must be one of "client_secret_basic", "client_secret_post", "none", ' +
        '"private_key_jwt"',
    ]);
    expect(issuesOf({ ...base, tokenRequestEncoding: 'xml' })).toEqual([
      'tokenRequestEncoding: must be one of "form", "json"',
    ]);
    expect(issuesOf({ ...base, login: { driver: 'selenium' } })).toEqual([
      'login.driver: must be one of "auto", "form", "browser"',
    ]);
    expect(issuesOf({ ...base, expectedFailures: ['PKCE plain'] })).toEqual([
      'expectedFailures[0]: must be a scenario id such as "pkce.plain-rejected" (see `idp-conformance list`)',
    ]);
    expect(issuesOf({ ...base, clients: { confidential: { ...base.clients.confidential, clientId: '' } } })).toEqual([
      'clients.confidential.clientId: must not be empty, e.g. "my-app"',
    ]);
  });

  it(
    'accepts browser login steps, keeps ${user.*} placeholders in them for the driver, and refuses ' + 'them elsewhere',
    () => {
      const steps = [
        { fill: '#username', value: '${user.username}' },
        { fill: '#password', value: '${user.password}', timeoutMs: 5000 },
        { click: 'button[type=submit]' },
        { check: '#remember', optional: true },
        { waitFor: 'text=Authorize' },
        { click: 'text=Allow', optional: true, decision: 'approve' },
      ];
      const config = validateConfig({ ...base, login: { driver: 'browser', steps } }, {});
      expect(config.login).toEqual({ driver: 'browser', steps });
      expect(validateConfig({ ...base, login: { driver: 'browser' } }, {}).login).toEqual({ driver: 'browser' });
      expect(issuesOf({ ...base, user: { username: 'alice', password: '${user.password}' } })).toEqual([
        'user.password: "${user.password}" stands for the configured user only in login.steps values; ' +
          'write the value ' +
          'here, or ${NAME} for an environment variable',
      ]);
      expect(
        issuesOf({ ...base, login: { driver: 'browser', steps: [{ click: '#go', decision: 'maybe' }] } }),
      ).toHaveLength(1);
      expect(issuesOf({ ...base, login: { driver: 'browser', steps: [{ type: '#go' }] } })).toHaveLength(1);
    },
  );

  it('reports every issue at once', () => {
    const issues = issuesOf({
      issuer: 'nope',
      clients: { machine: { clientId: 'm' } },
      login: { driver: 'form', extra: 1 },
    });
    expect(issues).toHaveLength(3);
  });

  it('interpolates ${ENV} and names a missing variable and its field', () => {
    const raw = { ...base, clients: { confidential: { ...base.clients.confidential, clientSecret: '${WEB_SECRET}' } } };
    expect(validateConfig(raw, { WEB_SECRET: 'from-env-123' }).clients.confidential?.clientSecret).toBe('from-env-123');
    expect(issuesOf(raw, {})).toEqual([
      'clients.confidential.clientSecret: environment variable WEB_SECRET is not set; export WEB_SECRET or write ' +
        'the value into the file',
    ]);
    expect(
      validateConfig({ ...base, user: { username: 'a$${LITERAL}', password: 'pw-${PW}' } }, { PW: 'x1234567' }).user,
    ).toEqual({ username: 'a${LITERAL}', password: 'pw-x1234567' });
  });

  it('accepts // and /* */ comments, trailing commas and $schema; reports JSON errors with line and column', () => {
    const text =
      '// head\n{\n  "$schema": "./schema.json", /* c */\n  "issuer": "https://idp.example", // "x": 1\n  ' +
      '"expectedFailures": ["a.b",],\n}\n';
    expect(validateConfig(parseJsonc(text, 'f.jsonc'), {}).expectedFailures).toEqual(['a.b']);
    expect(parseJsonc('{"u": "http://x//y", "c": "/* not a comment */"}', 'f.jsonc')).toEqual({
      u: 'http://x//y',
      c: '/* not a comment */',
    });
    expect(() => parseJsonc('{\n  "issuer": "x"\n  "clients": {}\n}', 'bad.json')).toThrow(
      /bad\.json: not valid JSON at line 3, column 3: comma expected/,
    );
    expect(() => parseJsonc('', 'empty.json')).toThrow(/empty\.json: not valid JSON/);
  });

  it('loads a file or an issuer URL, and names an unreadable file', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'idpc-config-'));
    const file = path.join(dir, 'target.json');
    await writeFile(file, JSON.stringify(base));
    expect((await loadTarget(file, {})).source).toBe('file');
    const fromUrl = await loadTarget('https://idp.example/', {});
    expect(fromUrl).toMatchObject({ source: 'issuer-url', config: { issuer: 'https://idp.example/', clients: {} } });
    await expect(loadTarget(path.join(dir, 'missing.json'), {})).rejects.toThrow(
      /--target: cannot read ".*missing\.json" \(no such file\); pass a config file/,
    );
  });
});

/**
 * The in-memory model of @node-oauth/oauth2-server 5.x, written to its model specification
 * (node-oauthoauth2-server.readthedocs.io, "Model Overview" and "Model Specification"): the functions the
 * authorization_code, refresh_token and client_credentials grants and the authorize handler call, each
 * doing what the specification says and nothing more. Everything lives in Maps for the life of the process.
 */
import { timingSafeEqual } from 'node:crypto';
import type OAuth2Server from '@node-oauth/oauth2-server';

export interface MemoryClient extends OAuth2Server.Client {
  id: string;
  clientSecret?: string;
  redirectUris: string[];
  grants: string[];
  /** The scopes this client may be granted (validateScope). */
  scopes: string[];
}

export interface MemoryUser extends OAuth2Server.User {
  id: string;
  username: string;
  password: string;
}

const same = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

export function memoryModel(clients: MemoryClient[], users: MemoryUser[]) {
  const codes = new Map<string, OAuth2Server.AuthorizationCode>();
  const accessTokens = new Map<string, OAuth2Server.Token>();
  const refreshTokens = new Map<string, OAuth2Server.RefreshToken>();

  const model: OAuth2Server.AuthorizationCodeModel &
    OAuth2Server.RefreshTokenModel &
    OAuth2Server.ClientCredentialsModel = {
    /** The spec: "clientSecret ... May be null" (it is null at the authorization endpoint). */
    async getClient(clientId, clientSecret) {
      const client = clients.find((c) => c.id === clientId);
      if (!client) return false;
      if (clientSecret != null && !(client.clientSecret && same(client.clientSecret, clientSecret))) return false;
      return client;
    },

    async saveAuthorizationCode(code, client, user) {
      const saved = { ...code, client, user } as OAuth2Server.AuthorizationCode;
      codes.set(code.authorizationCode, saved);
      return saved;
    },
    async getAuthorizationCode(authorizationCode) {
      return codes.get(authorizationCode) ?? false;
    },
    async revokeAuthorizationCode(code) {
      return codes.delete(code.authorizationCode);
    },

    async saveToken(token, client, user) {
      const saved = { ...token, client, user } as OAuth2Server.Token;
      accessTokens.set(token.accessToken, saved);
      if (token.refreshToken) refreshTokens.set(token.refreshToken, saved as OAuth2Server.RefreshToken);
      return saved;
    },
    async getAccessToken(accessToken) {
      return accessTokens.get(accessToken) ?? false;
    },
    async getRefreshToken(refreshToken) {
      return refreshTokens.get(refreshToken) ?? false;
    },
    async revokeToken(token) {
      return refreshTokens.delete(token.refreshToken);
    },

    /** client_credentials: the client acts on its own behalf. */
    async getUserFromClient(client) {
      return { id: `client:${client.id}` };
    },

    /** A client is granted only scopes it is registered for; none asked for is its registered ones. */
    async validateScope(_user, client, scope) {
      const allowed = (client as MemoryClient).scopes;
      if (!scope?.length) return allowed;
      return scope.every((s) => allowed.includes(s)) ? scope : false;
    },

    async verifyScope(token, scope) {
      const granted = token.scope ?? [];
      return scope.every((s) => granted.includes(s));
    },
  };
  return { model, users };
}

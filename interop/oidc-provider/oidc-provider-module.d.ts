/**
 * The slice of oidc-provider 9's API that interop/oidc-provider/provider.ts uses. oidc-provider ships
 * no type declarations and @types/oidc-provider is not a dependency, so this declares only what the
 * fixture touches; everything it does not use is deliberately absent.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** The `ctx.oidc` members the fixture's configuration callbacks read. */
  export interface OidcContext {
    route: string;
    params?: Record<string, unknown>;
    client?: ProviderClient;
    entities: Record<string, unknown>;
  }

  export interface KoaContextWithOIDC {
    oidc: OidcContext;
  }

  export interface ProviderClient {
    clientId: string;
    clientAuthMethod: string;
    applicationType?: string;
    grantTypeAllowed(grantType: string): boolean;
  }

  export interface Account {
    accountId: string;
    claims(
      use: string,
      scope: string,
      claims: unknown,
      rejected: string[],
    ): Promise<Record<string, unknown>> | Record<string, unknown>;
  }

  /** A stored artifact as oidc-provider hands it to its adapter. */
  export interface AdapterPayload {
    [key: string]: unknown;
    grantId?: string;
    userCode?: string;
    uid?: string;
    consumed?: unknown;
    jti?: string;
  }

  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number | undefined): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  /** InvalidGrant takes the (hidden) error detail; the others the error_description. */
  type OIDCProviderErrorClass = new (text?: string) => Error & { error: string; status: number };

  export const errors: {
    InvalidGrant: OIDCProviderErrorClass;
    InvalidTarget: OIDCProviderErrorClass;
    InvalidRequest: OIDCProviderErrorClass;
  };

  /** The Koa context members the fixture's own middleware touches. */
  export interface KoaResponseContext {
    set(field: string, value: string): void;
  }

  /** Configuration is checked by oidc-provider itself at construction; typed loosely here. */
  export type Configuration = Record<string, unknown>;

  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    readonly issuer: string;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    use(middleware: (ctx: KoaResponseContext, next: () => Promise<void>) => Promise<void>): void;
    on(event: 'server_error', listener: (ctx: unknown, error: Error) => void): this;
    on(event: string, listener: (...args: never[]) => void): this;
  }
}

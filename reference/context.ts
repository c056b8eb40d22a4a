/** What every endpoint and grant is handed: the server's configuration and its services. */
import type { Flaws } from './flaws.ts';
import type { KeySet } from './keys.ts';
import type { Lifetimes } from './lifetimes.ts';
import type { ReferenceOptions, RegisteredClient, RegistrationSettings, UserConfig } from './options.ts';
import type { SecuritySettings } from './security-profile.ts';
import type { Store } from './store/store.ts';
import type { TokenService } from './tokens.ts';
import type { Variants } from './variants.ts';

export interface ServerContext {
  /** The issuer identifier; every endpoint URL is built from it. */
  readonly issuer: string;
  /** {device_auth_url} (SPEC): the base of the device activation page; the issuer unless configured. */
  readonly deviceAuthUrl: string;
  readonly options: Readonly<ReferenceOptions>;
  /** PAR, DPoP, client authentication and resource settings (the fapi2 profile, or single options). */
  readonly security: SecuritySettings;
  readonly flaws: Flaws;
  /** The legitimate behaviours switched on (reference/variants.ts). */
  readonly variants: Variants;
  readonly store: Store;
  readonly keys: KeySet;
  readonly tokens: TokenService;
  readonly lifetimes: Lifetimes;
  /** The seeded (or configured) clients; registered ones are in the store (findClient finds both). */
  readonly clients: readonly RegisteredClient[];
  /** Dynamic client registration's settings; undefined when it is off. */
  readonly registration: RegistrationSettings | undefined;
  readonly users: readonly UserConfig[];
  /** Epoch milliseconds. */
  now(): number;
  /** A configured client, or (with registration on) a live registered one. */
  findClient(clientId: string): Promise<RegisteredClient | undefined>;
  findUser(username: string): UserConfig | undefined;
  userBySub(sub: string): UserConfig | undefined;
  /** `${issuer}${path}`: the absolute URL of one of this server's endpoints. */
  url(path: string): string;
}

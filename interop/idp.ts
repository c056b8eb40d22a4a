import type { BrowserStep } from '../harness/config/load.ts';
import type { ProfileName } from '../harness/model/results.ts';

export interface InteropIdp {
  name: string; // 'django-oauth-toolkit' | 'lemonldap-ng' | 'oidc-provider' | 'glewlwyd'
  /**
   * Install Debian packages (apt-get, idempotent, only as root; else throw a clear message naming the apt-get line).
   */
  install(): Promise<void>;
  /**
   * Configure fresh (keys, clients, user) under workDir, start as plain processes on 127.0.0.1:port, wait until
   * discovery answers.
   */
  start(options: {
    port: number;
    workDir: string;
    log?: (line: string) => void;
    /** Offer dynamic client registration (RFC 7591) and its management (RFC 7592), where the IdP module can. */
    registration?: boolean;
  }): Promise<RunningIdp>;
  /**
   * Scenarios whose pages only the browser driver can walk on this IdP (e.g. a deny button that
   * works by script): the matrix runs the catalog with the target config's driver, then these
   * again through the browser driver, against the same running IdP, and keeps the browser's
   * verdicts — as a user would re-run what the form driver reported it could not do. `why` says
   * what on the page needs the browser; the report's notices name each such scenario.
   */
  browserPass?: { scenarios: readonly string[]; why: string };
  /**
   * How many scenarios run at once against this IdP, when it cannot take the matrix's default (RUN.concurrency):
   * an IdP whose requests corrupt each other when they overlap gives verdicts of its own race, not of the rules the
   * scenarios judge. `why` is the evidence; the race scenarios still send their concurrent requests.
   */
  concurrency?: { scenarios: number; why: string };
  /**
   * The login steps a deployer would write for the IdP's fresh sign-in page (docs/login.md), for
   * `npm run interop -- --with-steps`: with them the catalog must give the verdicts it gives without them (a walk that
   * meets a page they do not fit, a signed-in page, answers it or is done again fresh).
   */
  signInSteps?: readonly BrowserStep[];
  /**
   * The profile the catalog judges this product by, when not the matrix's (RUN.profile, rfc): an MCP server's
   * authorization server is held to an MCP revision (which counts the RFCs as rfc does, and its own sentences).
   */
  profile?: { name: ProfileName; why: string };
}
export interface RunningIdp {
  /** A target config object (as harness/config/load.ts accepts) with the clients/user/login for this IdP. */
  targetConfig: Record<string, unknown>;
  /** Stops every process it started, by PID, and waits for them to exit. */
  stop(): Promise<void>;
}

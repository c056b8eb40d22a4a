export interface InteropIdp {
  name: string; // 'django-oauth-toolkit' | 'lemonldap-ng' | 'oidc-provider'
  /**
   * Install Debian packages (apt-get, idempotent, only as root; else throw a clear message naming the apt-get line).
   */
  install(): Promise<void>;
  /**
   * Configure fresh (keys, clients, user) under workDir, start as plain processes on 127.0.0.1:port, wait until
   * discovery answers.
   */
  start(options: { port: number; workDir: string; log?: (line: string) => void }): Promise<RunningIdp>;
}
export interface RunningIdp {
  /** A target config object (the same shape as harness/config.ts accepts) with the clients/user/login for this IdP. */
  targetConfig: Record<string, unknown>;
  /** Stops every process it started, by PID, and waits for them to exit. */
  stop(): Promise<void>;
}

/** Picks the login driver the target config asks for. */
import type { TargetConfig } from '../config.ts';
import { HarnessError } from '../failures.ts';
import type { HttpClient } from '../http.ts';
import type { LoginDriver } from './driver.ts';
import { FormLoginDriver } from './form.ts';

export type LoginDriverFactory = (http: HttpClient, config: TargetConfig) => LoginDriver;

export const defaultLoginDriver: LoginDriverFactory = (http, config) => {
  if (!config.user) throw new HarnessError('no user is configured (user.username and user.password), so nobody can log in');
  if (config.login.driver === 'form') {
    return new FormLoginDriver({
      http,
      username: config.user.username,
      password: config.user.password,
      usernameField: config.login.usernameField,
      passwordField: config.login.passwordField,
    });
  }
  throw new HarnessError('login.driver "browser" (Playwright) is not available in this version; use { "driver": "form" }');
};

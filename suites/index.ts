/** The built-in catalog, in report order. One file per scenario: id `area.name` ⇔ `suites/area/name.ts`. */
import type { Scenario } from '../harness/scenario.ts';
import discoveryDocument from './discovery/document.ts';
import codeHappyPath from './code/happy-path.ts';
import clientCredentialsIssuesToken from './client-credentials/issues-token.ts';
import pkceVerifierMismatch from './pkce/verifier-mismatch.ts';

export const BUILT_IN_SCENARIOS: readonly Scenario[] = [
  discoveryDocument,
  codeHappyPath,
  clientCredentialsIssuesToken,
  pkceVerifierMismatch,
];

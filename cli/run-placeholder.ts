/**
 * `run` until the harness (issue 4) lands: starts the embedded reference, checks that it
 * answers discovery, says plainly that no suites exist yet, and stops. Replaced by cli/run.ts.
 */
import type { Command } from './command.ts';
import { parseOptions } from './command.ts';
import { startEmbeddedReference } from './embedded.ts';

export const runPlaceholderCommand: Command = {
  summary: 'run the conformance suites (not yet: the harness has not landed)',
  usage: `Usage: idp-conformance run

The conformance harness has not landed yet, so there are no suites to run. For now this starts
the embedded reference server on a free local port, checks its discovery document, and stops.`,
  async run(argv) {
    const values = parseOptions(argv, { help: { type: 'boolean', short: 'h' } });
    if (values.help) {
      console.log(this.usage);
      return 0;
    }
    const { server, issuer } = await startEmbeddedReference();
    try {
      const response = await fetch(`${issuer}/.well-known/openid-configuration`);
      const discovery = (await response.json()) as { issuer?: unknown };
      console.log(`Embedded reference server started at ${issuer} (discovery issuer: ${String(discovery.issuer)}).`);
      console.log('The conformance harness has not landed yet: no suites were run, nothing was checked.');
    } finally {
      await server.close();
    }
    console.log('Reference server stopped.');
    return 0;
  },
};

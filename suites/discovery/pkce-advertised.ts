import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';

/**
 * PKCE support is detectable (RFC 9700 §2.1.1 recommends code_challenge_methods_supported for it),
 * S256 is offered (RFC 7636 §4.2: mandatory to implement on the server), and plain, which exposes
 * the verifier in the authorization request, is not (the SPEC's only method is S256; RFC 9700
 * §2.1.1 asks clients for methods that do not expose the verifier).
 */
export default defineScenario({
  id: 'discovery.pkce-advertised',
  title: 'Discovery advertises PKCE: code_challenge_methods_supported lists S256 and not plain',
  requirements: {
    rfc8414_2: {
      spec: 'RFC 8414',
      section: '2',
      level: 'MUST',
      party: 'server',
      note: 'code_challenge_methods_supported is a JSON array',
    },
    rfc7636_4_2: {
      spec: 'RFC 7636',
      section: '4.2',
      level: 'MUST',
      party: 'server',
      note: 'S256 is mandatory to implement on the server',
    },
    rfc9700_2_1_1: {
      spec: 'RFC 9700',
      section: '2.1.1',
      level: 'SHOULD',
      party: 'server',
      note: 'publish code_challenge_methods_supported',
    },
    // "Clients SHOULD use PKCE code challenge methods that do not expose the PKCE verifier": a client rule.
    noPlainClient: {
      spec: 'RFC 9700',
      section: '2.1.1',
      level: 'SHOULD',
      party: 'client',
      note: 'clients use methods that do not expose the verifier',
    },
    specCodeChallengePkce: {
      spec: 'SPEC',
      section: 'Code challenge (PKCE)',
      level: 'MUST',
      party: 'server',
      note: 'code_challenge_method: S256',
    },
    fapi2Pkce: {
      spec: 'FAPI 2.0 SP',
      section: '5.3.2.2',
      level: 'MUST',
      party: 'server',
      note: 'PKCE with S256 as the code challenge method',
    },
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  catches: ['pkce-plain-allowed'],
  async run(ctx) {
    // The document as published: discoveryOverrides widen what runs, never this verdict.
    const doc =
      (ctx.target.fetchedDiscovery !== undefined ? ctx.target.fetchedDiscovery : ctx.target.discovery) ??
      ctx.skip(
        `the discovery document could not be read (${ctx.target.discoveryProblem}); discovery.document reports that`,
      );
    for (const exchange of ctx.target.discoveryEvidence) ctx.evidence.add(exchange);
    const methods: unknown = doc.code_challenge_methods_supported;
    if (methods === undefined) {
      throw new CheckFailure(
        'The discovery document has no code_challenge_methods_supported; RFC 9700 §2.1.1 recommends publishing it ' +
          'so that clients can detect PKCE support.',
        { requirement: ctx.req.rfc9700_2_1_1, kind: 'refused-wrongly' },
      );
    }
    if (!Array.isArray(methods) || !methods.every((m) => typeof m === 'string')) {
      throw new CheckFailure(
        `code_challenge_methods_supported is ${JSON.stringify(methods)}; RFC 8414 §2 requires a JSON array of PKCE ` +
          `method names.`,
        { requirement: ctx.req.rfc8414_2, kind: 'refused-wrongly' },
      );
    }
    const shown = JSON.stringify(methods);
    await ctx.softly(() => {
      if (!methods.includes('S256')) {
        throw new CheckFailure(
          `code_challenge_methods_supported is ${shown}, without S256; RFC 7636 §4.2 makes S256 mandatory to ` +
            `implement on the server.`,
          { requirement: ctx.req.rfc7636_4_2, kind: 'refused-wrongly' },
        );
      }
    });
    if (methods.includes('plain')) {
      // Only the SPEC and FAPI 2.0 bind the server here (S256 alone); RFC 9700 §2.1.1 asks it of clients.
      if (ctx.applies(ctx.req.fapi2Pkce)) {
        throw new CheckFailure(
          `code_challenge_methods_supported is ${shown}: it offers plain, whose challenge is the verifier itself; ` +
            `FAPI 2.0 SP §5.3.2.2 requires S256 as the code challenge method.`,
          { requirement: ctx.req.fapi2Pkce },
        );
      }
      if (!ctx.applies(ctx.req.specCodeChallengePkce)) {
        ctx.evidence.note(
          `code_challenge_methods_supported offers plain; RFC 9700 §2.1.1 asks clients not to use it, which binds ` +
            `no server (${ctx.profile} profile).`,
        );
        return;
      }
      throw new CheckFailure(
        `code_challenge_methods_supported is ${shown}: it offers plain, whose challenge is the verifier itself; the ` +
          `SPEC allows only S256.`,
        { requirement: ctx.req.specCodeChallengePkce },
      );
    }
  },
});

import { type MalformedTokenRequest, malformedTokenRequest } from '../../generators/index.ts';
import { GRANT, type Params, defineScenario } from '../../harness/scenario/scenario.ts';
import { expectTokenErrorFormat, findClient } from '../checks/index.ts';

const defined = (params: Params): Record<string, string> =>
  Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));

export default defineScenario({
  id: 'token.error-format',
  title:
    'Malformed token requests get RFC 6749 §5.2 errors: HTTP 400 (401 for invalid_client), a JSON object, an error ' +
    'code from the set',
  requirements: { rfc6749_5_2: { spec: 'RFC 6749', section: '5.2', level: 'MUST', party: 'server' } },
  severity: 'medium',
  appliesTo: 'oauth2',
  requires: {
    optionalRoles: ['confidential', 'public', 'confidential2', 'machine', 'device', 'exchange'],
    capabilities: ['endpoint:token'],
  },
  catches: ['error-format-wrong'],
  async run(ctx) {
    // Any client the run has: the requests are malformed whoever sends them.
    const client =
      findClient(ctx, ['confidential', 'public', 'confidential2', 'machine', 'device', 'exchange']) ??
      ctx.skip('needs a client of any role (clients.<role> in the target config) to send token requests as');
    // A code redemption that cannot succeed (the code is made up): every variant must be an error.
    const valid = ctx.http.tokenRequest(client, {
      grant_type: GRANT.code,
      code: ctx.random(),
      redirect_uri: client.redirectUri,
      code_verifier: ctx.pkce.create().verifier,
    });
    const base = defined((valid.form ?? valid.json) as Params);
    const encoding = valid.json === undefined ? 'form' : 'json';
    await ctx.property(
      malformedTokenRequest(base, { encoding }),
      async (bad: MalformedTokenRequest) => {
        const res = await ctx.http.send({
          url: valid.url,
          method: 'POST',
          body: bad.body,
          label: `token request: ${bad.description}`,
          headers: { ...valid.headers, ...(bad.contentType === undefined ? {} : { 'content-type': bad.contentType }) },
        });
        // A body far beyond any token request may be refused before it is read: 413 (RFC 9110 §15.5.14), from
        // the IdP or its proxy, in whatever body format, is a valid refusal then (the "unless specified otherwise" of
        // §5.2).
        expectTokenErrorFormat(
          res,
          { when: `A token request with ${bad.description}`, per: ctx.req.rfc6749_5_2 },
          bad.kind === 'huge-body' ? { alsoStatus: [413] } : {},
        );
      },
      { label: 'malformed token requests', show: (bad) => `${bad.kind} (${bad.variant}): ${bad.description}` },
    );
  },
});

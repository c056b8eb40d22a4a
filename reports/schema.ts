/**
 * The report.json schema (schemaVersion 1) as zod: tests validate every report against it and
 * `npm run schema` publishes it as schema/report.schema.json for consumers.
 */
import { z } from 'zod';
import { CLIENT_ROLES } from '../protocol/client-roles.ts';
import { ERROR_CODES, type Report } from '../harness/model/results.ts';

const level = z.enum(['MUST', 'SHOULD', 'MAY']);
const status = z.enum(['passed', 'failed', 'warning', 'skipped', 'error']);
const message = z.strictObject({ headers: z.record(z.string(), z.string()), body: z.string().optional() });

const failureKind = z.enum(['accepted', 'refused-wrongly']);
const verdictChange = z.strictObject({
  id: z.string(),
  title: z.string(),
  from: z.union([status, z.literal('absent')]),
  to: status,
});

const evidence = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('http'),
    label: z.string().optional(),
    request: message.extend({ method: z.string(), url: z.string() }),
    response: message.extend({ status: z.int() }).optional(),
    error: z.string().optional(),
    durationMs: z.number().nonnegative(),
    decisive: z.literal(true).optional(),
  }),
  z.strictObject({ kind: z.literal('screenshot'), label: z.string().optional(), path: z.string() }),
  z.strictObject({
    kind: z.literal('counterexample'),
    label: z.string().optional(),
    seed: z.int(),
    runs: z.int(),
    path: z.string().optional(),
    value: z.string(),
    replay: z.string(),
  }),
  z.strictObject({ kind: z.literal('note'), label: z.string().optional(), text: z.string() }),
]);

const result = z.strictObject({
  id: z.string().regex(/^[a-z0-9-]+\.[a-z0-9-]+$/),
  title: z.string().min(1),
  area: z.string().min(1),
  status,
  severity: z.enum(['critical', 'high', 'medium', 'low', 'info']),
  level: level.optional(),
  requirements: z
    .array(
      z.strictObject({
        spec: z.string(),
        section: z.string(),
        level,
        party: z.enum(['server', 'client']).optional(),
        key: z.string().optional(),
        url: z.url().optional(),
        label: z.string(),
        applies: z.boolean(),
        note: z.string().optional(),
      }),
    )
    // Every scenario cites at least one; only the stop of a run that never reached its scenarios (run.stopped) none.
    .describe('The requirements the scenario cites (none only for run.stopped, the stop of a run).'),
  catches: z.array(z.string()),
  durationMs: z.number().nonnegative(),
  message: z.string().optional(),
  findings: z
    .array(
      z.strictObject({
        status: z.enum(['failed', 'warning']),
        message: z.string(),
        failureKind: failureKind.optional(),
        requirement: z.string().optional(),
      }),
    )
    .optional(),
  evidence: z.array(evidence),
  skipReason: z.string().optional(),
  errorCode: z.enum(ERROR_CODES).optional(),
  failureKind: failureKind.optional(),
  expected: z.boolean().optional(),
  unexpectedPass: z.boolean().optional(),
  log: z.array(z.string()).optional(),
  walks: z
    .array(
      z.strictObject({
        kind: z.enum(['authorization', 'device activation']),
        driver: z.enum(['form', 'browser', 'auto']),
        used: z.array(z.enum(['http', 'browser'])),
        switched: z
          .strictObject({
            url: z.string(),
            page: z.string(),
            reason: z.string(),
            remembered: z.literal(true).optional(),
          })
          .optional(),
      }),
    )
    .optional()
    .describe('The login walks the scenario made: the driver, the actuators used in order, where and why it switched.'),
});

const shard = z.strictObject({ index: z.int().positive(), total: z.int().positive() });

export const reportSchema = z.strictObject({
  schemaVersion: z.literal(1),
  tool: z.strictObject({ name: z.string(), version: z.string() }),
  target: z.strictObject({
    issuer: z.string(),
    source: z.enum(['file', 'issuer-url', 'embedded', 'object']),
    discoveryUrl: z.string(),
    kind: z
      .strictObject({
        protocol: z.enum(['oauth2', 'oidc']),
        why: z.string(),
        by: z.enum(['config', 'metadata', 'behaviour', 'guess']),
      })
      .optional()
      .describe(
        'What the target was taken for: "oidc" an OpenID provider, "oauth2" an OAuth 2.0 authorization server ' +
          '(OIDC-only scenarios skipped); why, and what decided it (the config, the metadata, a code flow, a guess).',
      ),
  }),
  profile: z.enum(['spec', 'rfc', 'fapi2', 'mcp-2025-06-18', 'mcp-2025-11-25', 'mcp-2026-07-28']),
  startedAt: z.iso.datetime(),
  durationMs: z.number().nonnegative(),
  seed: z.int().nonnegative(),
  runs: z.int().positive(),
  selection: z.strictObject({ only: z.array(z.string()), skip: z.array(z.string()), shard: shard.optional() }),
  mergedFrom: z
    .array(
      z.strictObject({ shard: shard.optional(), startedAt: z.iso.datetime(), durationMs: z.number().nonnegative() }),
    )
    .optional(),
  summary: z.strictObject({
    total: z.int(),
    passed: z.int(),
    failed: z.int(),
    warnings: z.int(),
    skipped: z.int(),
    errors: z.int(),
    expectedFailures: z.int(),
    security: z.int().optional(),
    interop: z.int().optional(),
  }),
  results: z.array(result),
  plantedFlaws: z.array(z.string()).optional(),
  discoveryOverrides: z.record(z.string(), z.unknown()).optional(),
  baseline: z
    .strictObject({
      source: z.string(),
      startedAt: z.string().optional(),
      seed: z.number().optional(),
      newFailures: z.array(verdictChange),
      fixed: z.array(verdictChange),
      changed: z.array(verdictChange),
    })
    .optional(),
  notices: z.array(z.string()).optional(),
  verdict: z
    .strictObject({
      judged: z.boolean(),
      reason: z.string().optional(),
      stopped: z.enum(['unreachable', 'time-limit']).optional(),
    })
    .optional(),
  outage: z
    .strictObject({
      at: z.string(),
      afterRequests: z.int(),
      lastSent: z.string(),
      cause: z.string(),
      scenarios: z.array(z.string()).optional(),
    })
    .optional(),
  registration: z
    .strictObject({
      endpoint: z.string(),
      registered: z.array(z.strictObject({ role: z.enum(CLIENT_ROLES), clientId: z.string() })),
      refused: z.array(z.strictObject({ role: z.enum(CLIENT_ROLES), reason: z.string() })),
      notDeleted: z.array(z.strictObject({ role: z.enum(CLIENT_ROLES), clientId: z.string(), reason: z.string() })),
    })
    .optional()
    .describe('The clients the harness registered for the run (RFC 7591), those refused, and any left behind.'),
});

// The schema and the Report type must describe the same thing.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const reportSchemaMatchesType: Same<z.output<typeof reportSchema>, Report> = true;

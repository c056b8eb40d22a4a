/**
 * `run --target URL --profile mcp…`: the target config an MCP client would arrive at from the MCP server's URL
 * (harness/target/mcp-discovery.ts), built in memory: the issuer the protected resource metadata names, the resource
 * (its URL and metadata URL), the user from --user, registration on. Also --profile's `mcp` alias and --user.
 */
import { type LoadedTarget, type TargetConfig, validateConfig } from '../harness/config/load.ts';
import { ConfigError } from '../harness/model/failures.ts';
import type { ProfileName } from '../harness/model/results.ts';
import { PROFILES } from '../harness/model/requirements.ts';
import { Redactor } from '../harness/redact/redact.ts';
import { discoveryUrlOf, rfc8414UrlsOf } from '../harness/target/discovery.ts';
import {
  type McpDiscovery,
  McpDiscoveryError,
  discoverFromMcpUrl,
  mcpDiscoveryLine,
} from '../harness/target/mcp-discovery.ts';
import { UsageError } from './command.ts';

/** `--profile mcp`: the newest MCP revision. */
export const NEWEST_MCP_PROFILE: ProfileName = 'mcp-2026-07-28';

/** The names --profile takes: the profiles, and `mcp`. */
export const PROFILE_CHOICES = [...PROFILES, 'mcp'] as const;

/** --profile's value as a profile (`mcp` the newest revision), or a UsageError. */
export function profileOption(value: string | undefined): ProfileName | undefined {
  if (value === undefined) return undefined;
  if (value === 'mcp') return NEWEST_MCP_PROFILE;
  const profile = PROFILES.find((p) => p === value);
  if (!profile) throw new UsageError(`--profile must be one of ${PROFILE_CHOICES.join(', ')}, not "${value}"`);
  return profile;
}

export const isMcpProfile = (profile: ProfileName | undefined): boolean => profile?.startsWith('mcp-') === true;

/** --user NAME:PASSWORD, split at the first colon. */
export function userOption(value: string | undefined): TargetConfig['user'] {
  if (value === undefined) return undefined;
  const at = value.indexOf(':');
  if (at <= 0 || at === value.length - 1)
    throw new UsageError('--user must be NAME:PASSWORD (both non-empty), e.g. --user alice:"$ALICE_PASSWORD"');
  return { username: value.slice(0, at), password: value.slice(at + 1) };
}

/** The MCP discovery's record and the config built from it. */
export interface McpTarget extends LoadedTarget {
  discovery: McpDiscovery;
  /** One console line (and a report notice) on what was found. */
  line: string;
}

/**
 * From the MCP server's URL to a loaded target. A step that fails is a ConfigError naming it (exit code 2); nothing
 * answering is the TargetUnreachableError the request threw (exit code 3).
 */
export async function loadMcpTarget(
  url: string,
  options: { profile: ProfileName; user?: TargetConfig['user']; requestTimeoutMs?: number; fetch?: typeof fetch },
): Promise<McpTarget> {
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    throw new ConfigError([`--target: "${url}" is not an http(s) URL of an MCP server, e.g. https://mcp.example/mcp`]);
  let discovery: McpDiscovery;
  try {
    discovery = await discoverFromMcpUrl(url, {
      redactor: new Redactor(options.user ? [{ value: options.user.password, kind: 'password' }] : []),
      profile: options.profile,
      ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  } catch (error) {
    if (error instanceof McpDiscoveryError) throw new ConfigError([error.message], `--target ${url}`);
    throw error;
  }
  // Where the run's own discovery (resolveTarget) would not look, it is told (OIDC Discovery with path insertion).
  const { issuer } = discovery;
  const looked = [discoveryUrlOf({ issuer }), ...rfc8414UrlsOf(issuer)];
  const config = validateConfig({
    issuer,
    ...(looked.includes(discovery.asMetadataUrl) ? {} : { discoveryUrl: discovery.asMetadataUrl }),
    resource: { url: discovery.resourceUrl, metadataUrl: discovery.metadataUrl },
    registration: { enabled: true },
    ...(options.user ? { user: options.user } : {}),
  });
  return { config, source: 'issuer-url', location: url, discovery, line: mcpDiscoveryLine(discovery) };
}

/**
 * One MCP server entry as a config file writes it: its zod shape and its type.
 *
 * A leaf on purpose: every api/ file that speaks of a server's config (redact.ts,
 * env-expansion.ts, identity.ts, …) imports its type from here, and schema.ts (validation and
 * its messages, which need redact.ts) imports the shape, so no import runs in a circle.
 *
 * Guarantees:
 * - Every known field is optional and typed; unknown fields are kept (passthrough), so
 *   validation (schema.ts) can report them as warnings instead of dropping them.
 */
import { z } from 'zod';

const stringRecord = z.record(z.string(), z.string());

export const serverConfigSchema = z
  .object({
    command: z.string().min(1),
    args: z.array(z.string()),
    env: stringRecord,
    cwd: z.string().min(1),
    url: z.string().url(),
    httpUrl: z.string().url(),
    type: z.enum(['stdio', 'sse', 'http']),
    headers: stringRecord,
    timeout: z.number().int().positive(),
    discoveryTimeoutMs: z.number().int().positive(),
    trust: z.boolean(),
    description: z.string(),
    includeTools: z.array(z.string()),
    excludeTools: z.array(z.string()),
    disabled: z.boolean(),
    updateStrategy: z.enum(['RollingUpdate', 'Recreate']),
    shared: z.boolean(),
    idleStopMs: z.number().int().nonnegative(),
    oauth: z.record(z.string(), z.unknown()),
    authProviderType: z.string(),
    extensionName: z.string(),
  })
  .partial()
  .passthrough();

/** One server entry as written in a config file, after normalisation (no Claude `type` left). */
export type McpServerConfig = z.infer<typeof serverConfigSchema>;

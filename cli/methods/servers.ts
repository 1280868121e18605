/**
 * Methods deciding about the servers of one session, of either kind: why, approve, reject
 * (list and describe: kind-objects.ts).
 *
 * Guarantees: env and header values are redacted unless the call says `showSecrets`; an
 * unknown name fails with NotFound and the closest known names; approve/reject answer after
 * the session settled, so the next `get` already shows the effect. approve/reject decide about
 * the config their `hash` prefix names (a stale or short one decides nothing, -32004), or the
 * current one, and answer with exactly the config they decided about (no secret values).
 * why/approve/reject take a `kind` (McpServer | LanguageServer); without one, a name both kinds
 * have is refused (resolveKind), so no decision lands on the other kind.
 */
import { z } from 'zod';
import { LANGUAGE_SERVERS, MCP_SERVERS, type ServerKind } from '../../api/index.js';
import { summaryOf, type Session } from '../../controller/session.js';
import type { WhyAnswer } from '../../controller/session.js';
import type { DecisionResult, ToolsDecisionResult } from '../objects.js';
import { RpcCodes, RpcError } from '../rpc/protocol.js';
import { method, type MethodTable } from '../rpc/methods.js';
import { selectSession, selectorShape, type MethodContext } from './context.js';
import { mustGet } from './kind-objects.js';

/** `--hash`: a prefix of the approval hash the decision is for (checked by the session). */
const hashPin = z.string().min(1).max(64).optional();

/** `kind` absent: the name decides (resolveKind). */
export const kindShape = { kind: z.enum([MCP_SERVERS.kind, LANGUAGE_SERVERS.kind]).optional() };

/**
 * Which kind a name means: the one given, else the one kind that has the name in this session.
 * A name both kinds have is refused, saying which two to choose from; an unknown one falls to
 * the MCP side, whose error names the closest servers.
 */
export function resolveKind(
  session: Session,
  name: string,
  kind: ServerKind | undefined,
): ServerKind {
  if (kind !== undefined) return kind;
  const desired = session.desired();
  const mcp = Object.hasOwn(desired.kinds[MCP_SERVERS.kind].servers, name);
  const lsp = Object.hasOwn(desired.kinds[LANGUAGE_SERVERS.kind].servers, name);
  if (mcp && lsp)
    throw new RpcError(
      RpcCodes.InvalidParams,
      `${name} is both an MCP server and a language server in this session; name the one you mean: ${MCP_SERVERS.objectOf(name)} or ${LANGUAGE_SERVERS.objectOf(name)}`,
    );
  return lsp ? LANGUAGE_SERVERS.kind : MCP_SERVERS.kind;
}

export function serverMethods(ctx: MethodContext): MethodTable {
  const named = z.object({ ...selectorShape, name: z.string().min(1), ...kindShape });
  return {
    'servers.why': method(
      named,
      '{ name, reason, message, action }: why the tools of a server are (un)available',
      async (p, call): Promise<WhyAnswer> => {
        const session = await selectSession(ctx, p, call);
        const kind = resolveKind(session, p.name, p.kind);
        const answer = session.kind(kind).why(p.name);
        if (answer.reason === 'Unknown') throw session.kind(kind).unknown(p.name);
        return answer;
      },
    ),
    'servers.approve': method(
      named.extend({ hash: hashPin, sessionOnly: z.boolean().optional() }),
      'DecisionResult: approves the config `hash` (a prefix) names, or the current one; answers when settled',
      async (p, call): Promise<DecisionResult> => {
        // Never the default session by accident: a decision names its project.
        const session = await selectSession(ctx, p, call, { fallback: false });
        const sessionOnly = p.sessionOnly ?? false;
        const decision = sessionOnly ? 'approved-for-session' : 'approved';
        const kind = resolveKind(session, p.name, p.kind);
        // Read and decided in one synchronous step: what is returned is what was approved.
        const subject = session.kind(kind).subject(p.name, p.hash);
        await session.kind(kind).approve(p.name, subject.hash, { sessionOnly });
        await session.settled();
        return decided(session, kind, p.name, decision, summaryOf(subject));
      },
    ),
    'servers.reject': method(
      named.extend({ hash: hashPin }),
      'DecisionResult: rejects the config `hash` (a prefix) names, or the current one; answers when settled',
      async (p, call): Promise<DecisionResult> => {
        const session = await selectSession(ctx, p, call, { fallback: false });
        const kind = resolveKind(session, p.name, p.kind);
        const subject = session.kind(kind).subject(p.name, p.hash);
        await session.kind(kind).reject(p.name, subject.hash);
        await session.settled();
        return decided(session, kind, p.name, 'rejected', summaryOf(subject));
      },
    ),
    'servers.decideTools': method(
      named.extend({
        decision: z.enum(['accept', 'reject']),
        digests: z
          .array(z.string().regex(/^[0-9a-f]{64}$/))
          .max(10_000)
          .optional(),
      }),
      'ToolsDecisionResult: accepts or rejects what the pins of an MCP server hold (those `digests`, or all it holds now); answers when settled',
      async (p, call): Promise<ToolsDecisionResult> => {
        const session = await selectSession(ctx, p, call, { fallback: false });
        if (resolveKind(session, p.name, p.kind) !== MCP_SERVERS.kind)
          throw new RpcError(
            RpcCodes.InvalidParams,
            `${LANGUAGE_SERVERS.objectOf(p.name)} has no pinned tools; --tools decides about an MCP server's tools and prompts`,
          );
        const decided = await session.decideTools(p.name, p.decision, p.digests);
        return {
          decision: p.decision,
          decided: [...decided],
          server: mustGet(session, MCP_SERVERS.kind, p.name, {}),
        };
      },
    ),
  };
}

/** What a decision answers with: the config decided about and the server as it is now. */
function decided(
  session: Session,
  kind: ServerKind,
  name: string,
  decision: DecisionResult['decision'],
  config: DecisionResult['config'],
): DecisionResult {
  return kind === LANGUAGE_SERVERS.kind
    ? { kind, decision, config, server: mustGet(session, kind, name, {}) }
    : { kind, decision, config, server: mustGet(session, MCP_SERVERS.kind, name, {}) };
}

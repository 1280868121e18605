/**
 * Asking the agent's user about tools and prompts a server changed after they were accepted
 * (issue #35), through MCP elicitation, as approvals are asked (approval-prompt.ts).
 *
 * Guarantees:
 * - Asked only when the client declared elicitation; accept / reject act, cancel decides
 *   nothing. Servers already holding something when the client connected are asked about once
 *   it has initialized; one server is never asked twice at once, and the same held set is
 *   asked about once per agent connection (the user's cancel is an answer: not now).
 * - The question shows each held definition and its diff against what was accepted, as
 *   `describe` and `approve --tools` show them (api/definition.ts), and carries their digests:
 *   the answer decides about exactly those; what changed again while the dialog was open is
 *   not decided and is asked about anew.
 * - The whole question is escaped (api/escape.ts): no unshown character a server wrote reaches
 *   the agent's user raw.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { definitionDiff, escapeText, heldLine, quoted } from '../api/index.js';
import type { HeldToolsRequest, SessionPort } from './session-port.js';
import { askChoice, askUser } from './user-questions.js';

export interface PinsPromptOptions {
  readonly timeoutMs: number;
  readonly log: (message: string) => void;
}

/** The question's lines: every held definition with its diff. */
export function heldToolsQuestion(request: HeldToolsRequest): string {
  const lines = [
    `The MCP server ${quoted(request.name)} changed what it offers the agent since it was accepted; until you decide, these are held from every agent:`,
  ];
  for (const h of request.held) {
    lines.push('', heldLine(h), ...definitionDiff(h.before, h.after));
  }
  lines.push('', 'Let the agent use the new definitions?');
  return escapeText(lines.join('\n'));
}

const digestsOf = (r: HeldToolsRequest): readonly string[] => r.held.map((h) => h.digest);

/** Starts asking; returns the function to call once the client has initialized. */
export function promptHeldTools(
  server: Server,
  port: SessionPort,
  o: PinsPromptOptions,
): () => void {
  return askUser<HeldToolsRequest>(server, {
    subjectOf: (request) => request.name,
    versionOf: (request) => digestsOf(request).join(','),
    labelOf: (request) => `the decision about the held tools of ${request.name}`,
    open: () => port.heldTools(),
    onAnnounced: (listener) => port.onToolsHeld(listener),
    ask: (request) => askAbout(server, port, request, o.timeoutMs),
    // Every pass that holds something announces it: a set once asked is not asked again.
    oncePerVersion: true,
    log: o.log,
  });
}

/** Asks once; resolves with why nothing was recorded, or undefined (decided, or cancelled). */
async function askAbout(
  server: Server,
  port: SessionPort,
  request: HeldToolsRequest,
  timeout: number,
): Promise<string | undefined> {
  const chosen = await askChoice(
    server,
    heldToolsQuestion(request),
    [
      ['accept', 'Accept the new definitions'],
      ['reject', 'Keep them out (not asked again)'],
    ],
    timeout,
  );
  const decision = chosen === 'decline' ? 'reject' : chosen;
  if (decision === undefined) return undefined;
  const outcome = await port.decideTools(request.name, decision, digestsOf(request));
  return outcome.decided ? undefined : outcome.reason;
}

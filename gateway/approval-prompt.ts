/**
 * Asking the agent's user about gated servers through MCP elicitation (DESIGN §5 "Approval
 * through MCP").
 *
 * Guarantees:
 * - Asked only when the client declared elicitation; approve / approve for this session /
 *   reject act, cancel decides nothing. Servers already pending when the client connected are
 *   asked about once it has initialized (the session announces a config only once); one
 *   server is never asked twice at once.
 * - MCP servers (`.mcp.json`) and language servers (`.lsp.json`) are asked about alike; the
 *   question names the kind (a language server as `languageserver/NAME`) and the answer decides
 *   about that kind only: approving a language server never approves the MCP server of its
 *   name, and the reverse.
 * - The question carries the approval hash of the config it shows, and the answer decides
 *   about that config only: when the config changed while the dialog was open, the answer
 *   decides nothing and the user is asked about the new config.
 * - The question shows what the config runs (command, args, cwd) or contacts (URL, OAuth
 *   endpoints), what else decides that (a repository's env values, a language server's
 *   options and settings) and which variables it sends where, exactly as `mcpctl approve` and
 *   `describe` show it (api/disclosure.ts): `${VAR}` text and names, never a variable's value.
 * - The whole question is escaped as every surface escapes text (api/escape.ts): no control,
 *   bidi, zero-width or tag character of a file reaches the agent's user raw.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { disclosureLines, escapeText, kindNamed, LANGUAGE_SERVER, quoted } from '../api/index.js';
import type { ApprovalRequest, DecideOutcome, Decision, SessionPort } from './session-port.js';
import { askChoice, askUser } from './user-questions.js';

/** How logs and questions name the server: `languageserver/NAME` for a language server. */
function labelOf(request: ApprovalRequest): string {
  return kindNamed(request.kind).label(request.name);
}

/** One dialog per server of each kind: a language server and an MCP server may share a name. */
const keyOf = (request: ApprovalRequest): string => `${request.kind}:${request.name}`;

export interface ApprovalPromptOptions {
  readonly timeoutMs: number;
  readonly log: (message: string) => void;
}

/** Starts asking; returns the function to call once the client has initialized. */
export function promptApprovals(
  server: Server,
  port: SessionPort,
  o: ApprovalPromptOptions,
): () => void {
  return askUser<ApprovalRequest>(server, {
    subjectOf: keyOf,
    // The config may change while the dialog is open: the new one is asked about after it.
    versionOf: (request) => request.hash,
    labelOf: (request) => `approval of ${labelOf(request)}`,
    open: () => port.pendingApprovals(),
    onAnnounced: (listener) => port.onPendingApproval(listener),
    ask: async (request) => {
      const outcome = await askForApproval(server, port, request, o.timeoutMs);
      return outcome && !outcome.decided ? outcome.reason : undefined;
    },
    // The session announces a config once; a replay after `initialized` may repeat it.
    oncePerVersion: false,
    log: o.log,
  });
}

/**
 * Asks about one config; the answer decides about that config (its hash) only. No decision
 * (cancelled, or an answer that is none of the choices) → undefined.
 */
async function askForApproval(
  server: Server,
  port: SessionPort,
  request: ApprovalRequest,
  timeout: number,
): Promise<DecideOutcome | undefined> {
  const chosen = await askChoice(
    server,
    escapeText(
      [
        `The ${request.scope} config ${quoted(request.source)} asks to start ${request.kind === LANGUAGE_SERVER ? 'the language server' : 'the MCP server'} ${quoted(labelOf(request))}:`,
        ...disclosureLines(request.disclosure),
        `config hash: ${request.hash.slice(0, 12)}`,
        'Allow it to run?',
      ].join('\n'),
    ),
    [
      ['approve', 'Approve (remembered for this exact config)'],
      ['approve-session', 'Approve for this session only'],
      ['reject', 'Reject'],
    ],
    timeout,
  );
  if (chosen === undefined) return undefined;
  const decision: Decision = chosen === 'decline' ? 'reject' : chosen;
  return port.decide(request.name, decision, request.hash, request.kind);
}

/**
 * The bookkeeping every question to the agent's user through MCP elicitation shares (approvals,
 * held tools): when to ask, never twice at once, and what to ask after a dialog.
 *
 * Guarantees:
 * - Asked only when the client declared elicitation (before `initialized` the capabilities are
 *   unknown: the returned function replays what is open then).
 * - One dialog per subject at a time; an announcement while one is open is dropped, and when it
 *   closes the open questions are listed again and a subject's newer version (a config swapped,
 *   tools changed again while the user read) is asked about: an answer about the old one
 *   decided nothing.
 * - With `oncePerVersion`, a version already asked about on this connection is not asked again
 *   (a cancel is an answer: not now).
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { messageOf } from '../api/index.js';

export interface UserQuestions<R> {
  /** What a dialog is about: one dialog per subject at a time. */
  subjectOf(request: R): string;
  /** Which version of the subject the request shows (a config hash, the digests held). */
  versionOf(request: R): string;
  /** For logs: `approval of server x`. */
  labelOf(request: R): string;
  /** The questions open now. */
  open(): Promise<R[]>;
  /** New questions, as they come. */
  onAnnounced(listener: (request: R) => void): void;
  /** Asks; resolves with why the answer was not recorded, or undefined. */
  ask(request: R): Promise<string | undefined>;
  readonly oncePerVersion: boolean;
  readonly log: (message: string) => void;
}

/** Starts asking; returns the function to call once the client has initialized. */
export function askUser<R>(server: Server, q: UserQuestions<R>): () => void {
  const asking = new Set<string>();
  const asked = new Set<string>();
  const listOpen = (then: (requests: R[]) => void) =>
    void q
      .open()
      .then(then, (err: unknown) => q.log(`could not list open questions: ${messageOf(err)}`));
  const ask = (request: R) => {
    const subject = q.subjectOf(request);
    const version = `${subject}\n${q.versionOf(request)}`;
    if (!server.getClientCapabilities()?.elicitation || asking.has(subject)) return;
    if (q.oncePerVersion && asked.has(version)) return;
    asking.add(subject);
    asked.add(version);
    void q
      .ask(request)
      .then((reason) => {
        if (reason !== undefined) q.log(`${q.labelOf(request)} not recorded: ${reason}`);
      })
      .catch((err: unknown) => q.log(`${q.labelOf(request)} failed: ${messageOf(err)}`))
      .finally(() => {
        asking.delete(subject);
        listOpen((requests) => {
          const now = requests.find((r) => q.subjectOf(r) === subject);
          if (now && q.versionOf(now) !== q.versionOf(request)) ask(now);
        });
      });
  };
  q.onAnnounced(ask);
  return () => {
    if (server.getClientCapabilities()?.elicitation) listOpen((requests) => requests.forEach(ask));
  };
}

/** What the user chose: one of the choices, `decline`, or nothing (`cancel`, or no choice). */
export type Chosen<C extends string> = C | 'decline' | undefined;

/**
 * Asks `message` with one `decision` field of `choices` (value and title); resolves with the
 * value chosen, `decline`, or undefined for a cancel or an answer that is none of them.
 */
export async function askChoice<C extends string>(
  server: Server,
  message: string,
  choices: ReadonlyArray<readonly [C, string]>,
  timeout: number,
): Promise<Chosen<C>> {
  const result = await server.elicitInput(
    {
      message,
      requestedSchema: {
        type: 'object',
        properties: {
          decision: {
            type: 'string',
            title: 'Decision',
            oneOf: choices.map(([value, title]) => ({ const: value, title })),
          },
        },
        required: ['decision'],
      },
    },
    { timeout },
  );
  if (result.action === 'cancel') return undefined;
  if (result.action === 'decline') return 'decline';
  const decision = result.content?.decision;
  return choices.find(([value]) => value === decision)?.[0];
}

/**
 * Pinned tools (issue #35): what a server lists, held against what the user accepted.
 *
 * Guarantees:
 * - Never pinned (no pins for this connectionId): trust on first use. Every tool and prompt is
 *   pinned as listed and shown; `firstPins` is what to save. (A gated server is only listed
 *   after the user approved its config, so its first pins follow that approval.)
 * - Pinned: an item whose definition digest equals its pin is shown; one whose digest differs
 *   (`changed`) or that has no pin (`added`) is held, shown to no agent, until the user
 *   accepts it (`accepted`, a pure step on the pins); an item removed simply goes (its pin
 *   stays, so it may come back as it was). A held definition the user rejected is held
 *   without asking again (`rejected: true`).
 * - Fail closed: with `storeProblem` set nothing is shown; every item is held as changed.
 * - Unshown characters (api/escape.ts) in a shown definition reach the agent escaped, unless
 *   the user accepted that very definition with them (`raw`); an item whose name or a key
 *   holds one cannot be escaped and is held until accepted. Every held item names the places.
 */
import type { Prompt, Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  definitionDigest,
  definitionOf,
  unshownPlaces,
  withEscapedText,
  type DefinitionKind,
  heldLine,
  type HeldChange,
  type HeldDefinition,
} from '../api/index.js';
export type { HeldChange, HeldDefinition } from '../api/index.js';
import type { Pin, ServerPins } from '../approvals/index.js';
import { commandHint } from './shell-quote.js';

export interface PinReview {
  readonly tools: readonly Tool[];
  readonly prompts: readonly Prompt[];
  readonly held: readonly HeldDefinition[];
  /**
   * Shown with their unshown characters escaped (trust on first use): accepting them passes
   * them as they are.
   */
  readonly escaped: readonly HeldDefinition[];
  /** Trust on first use: the pins to save (nothing was pinned for this connectionId). */
  readonly firstPins?: ServerPins;
}

export interface PinListing {
  readonly tools: readonly Tool[];
  readonly prompts: readonly Prompt[];
}

/** The digest of a pin that only remembers rejections: no definition was ever accepted. */
export const NEVER_ACCEPTED = '0'.repeat(64);

function pinOf(kind: DefinitionKind, item: Tool | Prompt): Pin {
  const definition = definitionOf(kind, item);
  return { digest: definitionDigest(definition), definition };
}

function pinMap(kind: DefinitionKind, items: readonly (Tool | Prompt)[]): Map<string, Pin> {
  return new Map(items.map((i) => [i.name, pinOf(kind, i)]));
}

export function reviewListing(
  listing: PinListing,
  pins: ServerPins | undefined,
  options: { readonly storeProblem?: string; readonly now: () => Date },
): PinReview {
  const held: HeldDefinition[] = [];
  const escaped: HeldDefinition[] = [];
  const firstUse = pins === undefined && options.storeProblem === undefined;
  const review = <T extends Tool | Prompt>(
    kind: DefinitionKind,
    items: readonly T[],
    pinned: ReadonlyMap<string, Pin> | undefined,
  ): T[] => {
    const shown: T[] = [];
    for (const item of items) {
      const after = definitionOf(kind, item);
      const digest = definitionDigest(after);
      const pin = pinned?.get(item.name);
      const accepted = pin?.digest === NEVER_ACCEPTED ? undefined : pin;
      const unshown = unshownPlaces(after);
      const heldAs = (change: HeldChange): HeldDefinition => ({
        kind,
        name: item.name,
        change,
        digest,
        ...(accepted ? { before: accepted.definition } : {}),
        after,
        unshown,
        rejected: pin?.rejected?.includes(digest) ?? false,
      });
      const hold = (change: HeldChange): void => void held.push(heldAs(change));
      if (options.storeProblem !== undefined) hold('unreadable');
      else if (!firstUse && pin?.digest !== digest) hold(accepted ? 'changed' : 'added');
      else if (unshown.length === 0 || pin?.raw === true) shown.push(item);
      else {
        const safe = withEscapedText(kind, item);
        if (safe.escapable) {
          shown.push(safe.item);
          escaped.push(heldAs('unshown'));
        } else hold('unshown');
      }
    }
    return shown;
  };
  const tools = review('tool', listing.tools, pins?.tools);
  const prompts = review('prompt', listing.prompts, pins?.prompts);
  return {
    tools,
    prompts,
    held,
    escaped,
    ...(firstUse
      ? {
          firstPins: {
            pinnedAt: options.now().toISOString(),
            tools: pinMap('tool', listing.tools),
            prompts: pinMap('prompt', listing.prompts),
          },
        }
      : {}),
  };
}

/**
 * The pins after the user decided about `decided` (held definitions as they were shown):
 * accepted ones replace their pin (with their unshown characters allowed), rejected ones are
 * added to their pin's rejected list. A server never pinned starts from empty pins.
 */
export function decidedPins(
  pins: ServerPins | undefined,
  decided: readonly HeldDefinition[],
  decision: 'accept' | 'reject',
  now: Date,
): ServerPins {
  const tools = new Map(pins?.tools ?? []);
  const prompts = new Map(pins?.prompts ?? []);
  for (const d of decided) {
    const map = d.kind === 'tool' ? tools : prompts;
    const old = map.get(d.name);
    if (decision === 'accept')
      map.set(d.name, { digest: d.digest, definition: d.after, raw: true });
    else if (old)
      map.set(d.name, { ...old, rejected: [...new Set([...(old.rejected ?? []), d.digest])] });
    else
      // A new item rejected: a pin no listing can match, that remembers the rejection.
      map.set(d.name, { digest: NEVER_ACCEPTED, definition: {}, rejected: [d.digest] });
  }
  return {
    ...(pins?.approvalHash === undefined ? {} : { approvalHash: pins.approvalHash }),
    pinnedAt: pins?.pinnedAt ?? now.toISOString(),
    tools,
    prompts,
  };
}

/** What the MCP kind asks of the session's pins (the session saves first pins itself). */
export interface ToolPins {
  review(name: string, connectionId: string, listing: PinListing): PinReview;
  /** Why no pin can be trusted now (file and fix), or undefined. */
  problem(): string | undefined;
}

export const PINNED_CONDITION = 'ToolsPinned';

/** The `ToolsPinned` condition of a served listing. */
export function pinnedCondition(
  name: string,
  review: PinReview,
  problem: string | undefined,
): {
  type: string;
  status: 'True' | 'False';
  reason: 'Pinned' | 'ToolsChanged' | 'ToolsRejected' | 'PinsUnreadable';
  message: string;
} {
  const type = PINNED_CONDITION;
  if (problem !== undefined)
    return {
      type,
      status: 'False',
      reason: 'PinsUnreadable',
      message: `every tool and prompt is held: ${problem}`,
    };
  if (review.held.length === 0) {
    const escaped =
      review.escaped.length > 0
        ? `; shown escaped: ${review.escaped.map(heldLine).join(', ')}`
        : '';
    return {
      type,
      status: 'True',
      reason: 'Pinned',
      message: `${review.tools.length} tools and ${review.prompts.length} prompts as accepted${escaped}`,
    };
  }
  const asking = review.held.filter((h) => !h.rejected);
  return {
    type,
    status: 'False',
    reason: asking.length > 0 ? 'ToolsChanged' : 'ToolsRejected',
    message: `held from every agent: ${review.held.map(heldLine).join(', ')}${asking.length > 0 ? `; ${commandHint(['mcpctl', 'describe', `server/${name}`])} shows what changed, ${commandHint(['mcpctl', 'approve', name, '--tools'])} accepts it` : ''}`,
  };
}

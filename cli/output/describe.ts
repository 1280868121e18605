/**
 * `mcpctl describe server NAME`, in kubectl's describe layout: labelled fields, the spec as
 * indented YAML (already redacted by the daemon unless --show-secrets), what it contacts and
 * sends where (the disclosure the approval question and `approve` show), a Conditions table,
 * the session's conditions when one is not True (a config file that does not parse or
 * validate), the last stderr lines when the server is not Ready, and an Events table or
 * `Events: <none>`.
 */
import {
  ANNOTATION_SCOPE,
  ANNOTATION_SOURCE,
  definitionDiff,
  heldLine,
  disclosureLines,
  escapeField,
  findCondition,
} from '../../api/index.js';
import type { Condition, Disclosure, HeldDefinition, ServerStatusBase } from '../../api/index.js';
import type {
  LanguageServerDescription,
  McpEvent,
  McpServer,
  ServerDescription,
} from '../objects.js';
import { ageOf } from './age.js';
import { yaml } from './escape.js';
import { statusColour, type Style } from './style.js';
import { renderTable, type CellInput } from './table.js';

function indent(text: string, by = '  '): string {
  return text
    .split('\n')
    .map((l) => (l === '' ? l : by + l))
    .join('\n');
}

/** Labelled values, one per line; every value is escaped (it may come from a config or a server). */
function fields(pairs: ReadonlyArray<readonly [string, string]>, by = ''): string {
  const width = Math.max(...pairs.map(([k]) => k.length + 1));
  return pairs.map(([k, v]) => `${by}${`${k}:`.padEnd(width)}  ${escapeField(v)}`).join('\n');
}

function list(names: readonly string[]): string {
  return names.length === 0 ? '<none>' : names.join(', ');
}

function eventAge(e: McpEvent, now: number): string {
  const last = ageOf(e.lastTimestamp, now);
  return e.count > 1 ? `${last} (x${e.count} over ${ageOf(e.firstTimestamp, now)})` : last;
}

/** What both kinds' descriptions have: metadata, spec, conditions, disclosure, stderr, events. */
interface Described {
  readonly server: {
    readonly metadata: McpServer['metadata'];
    readonly spec: unknown;
    readonly status: ServerStatusBase;
  };
  readonly disclosure: Disclosure;
  readonly stderr: readonly string[];
  readonly events: readonly McpEvent[];
  /** The session's ConfigValid and Trusted. */
  readonly sessionConditions: readonly Condition[];
}

export function describeServer(d: ServerDescription, now: number, style: Style): string {
  const st = d.server.status;
  return describeObject(
    d,
    [
      [`Tools (${st.tools.length})`, list(st.tools)],
      [`Prompts (${st.prompts.length})`, list(st.prompts)],
    ],
    now,
    style,
    [
      ...heldBlock('Held from agents (accept: approve NAME --tools):', st.held, style),
      ...heldBlock(
        'Shown to agents escaped (accept as is: approve NAME --tools):',
        st.escaped,
        style,
      ),
    ],
  );
}

/**
 * The definitions the pins hold (or show escaped), each with its diff against what was
 * accepted: the lines are escaped already (api/definition.ts `definitionDiff`).
 */
function heldBlock(
  title: string,
  held: readonly HeldDefinition[] | undefined,
  style: Style,
): string[] {
  if (!held || held.length === 0) return [];
  const items = held.map(
    (h) => `${heldLine(h)}\n${indent(definitionDiff(h.before, h.after).join('\n'))}`,
  );
  return [`${style.bold(title)}\n${indent(items.join('\n'))}`];
}

/** `describe languageserver NAME`: the same layout; its status says folder and extensions. */
export function describeLanguageServer(
  d: LanguageServerDescription,
  now: number,
  style: Style,
): string {
  const st = d.server.status;
  return describeObject(
    d,
    [
      ['Workspace Folder', st.workspaceFolder ?? '<none>'],
      [`Extensions (${st.extensions.length})`, list(st.extensions)],
    ],
    now,
    style,
  );
}

/** A Conditions table under `title`, or `title <none>`. */
function conditionsBlock(title: string, conditions: readonly Condition[], style: Style): string {
  if (conditions.length === 0) return `${style.bold(title)} <none>`;
  const rows: CellInput[][] = conditions.map((c) => [
    c.type,
    { text: c.status, paint: statusColour(style, c.status) },
    c.lastTransitionTime,
    c.reason ?? '',
    c.message ?? '',
  ]);
  return `${style.bold(title)}\n${indent(
    renderTable(
      ['Type', 'Status', 'LastTransitionTime', 'Reason', 'Message'],
      [['----', '------', '------------------', '------', '-------'], ...rows],
    ).trimEnd(),
  )}`;
}

/** `kindRows`: what the kind's status adds after the rows every server's status has. */
function describeObject(
  d: Described,
  kindRows: ReadonlyArray<readonly [string, string]>,
  now: number,
  style: Style,
  blocks: readonly string[] = [],
): string {
  const s = d.server;
  const ann = s.metadata.annotations ?? {};
  const st = s.status;
  const out: string[] = [];
  out.push(
    fields([
      ['Name', s.metadata.name],
      ['Scope', ann[ANNOTATION_SCOPE] ?? ''],
      ['Source', ann[ANNOTATION_SOURCE] ?? ''],
      ['Generation', String(s.metadata.generation)],
      [
        'Created',
        `${s.metadata.creationTimestamp} (${ageOf(s.metadata.creationTimestamp, now)} ago)`,
      ],
    ]),
  );
  out.push(`${style.bold('Spec:')}\n${indent(yaml(s.spec).trimEnd())}`);
  const disclosure = disclosureLines(d.disclosure);
  if (disclosure.length > 0)
    out.push(
      `${style.bold('Contacts and sends:')}\n${indent(disclosure.map(escapeField).join('\n'))}`,
    );
  out.push(
    `${style.bold('Status:')}\n` +
      fields(
        [
          [
            'Observed Generation',
            st.observedGeneration === undefined ? '<none>' : String(st.observedGeneration),
          ],
          ['Connection ID', st.connectionId ?? '<none>'],
          ['Approval Hash', st.approvalHash ?? '<none>'],
          ['PID', st.pid === undefined ? '<none>' : String(st.pid)],
          ['Connected At', st.connectedAt ?? '<none>'],
          ['Restarts', String(st.restarts)],
          ...kindRows,
        ],
        '  ',
      ),
  );
  out.push(conditionsBlock('Conditions:', st.conditions, style));
  out.push(...blocks);
  // The session's own, when one is not True: a file that does not parse shows here.
  if (d.sessionConditions.some((c) => c.status !== 'True'))
    out.push(conditionsBlock('Session Conditions:', d.sessionConditions, style));
  const ready = findCondition(st.conditions, 'Ready');
  if (ready?.status !== 'True' && d.stderr.length > 0)
    out.push(
      `${style.bold(`Recent stderr (last ${d.stderr.length} lines):`)}\n${indent(d.stderr.map(escapeField).join('\n'))}`,
    );
  if (d.events.length === 0) out.push(`${style.bold('Events:')} <none>`);
  else {
    const rows: CellInput[][] = d.events.map((e) => [
      { text: e.type, paint: e.type === 'Warning' ? style.yellow : (t: string) => t },
      e.reason,
      eventAge(e, now),
      e.message,
    ]);
    out.push(
      `${style.bold('Events:')}\n${indent(
        renderTable(
          ['Type', 'Reason', 'Age', 'Message'],
          [['----', '------', '----', '-------'], ...rows],
        ).trimEnd(),
      )}`,
    );
  }
  return `${out.join('\n')}\n`;
}

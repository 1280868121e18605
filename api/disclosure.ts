/**
 * What a server will run or contact, and what it will send where, as its file writes it: the
 * one description every surface shows (the approval question the gateway asks, `mcpctl
 * approve`/`reject`, `mcpctl describe`), so they cannot disagree.
 *
 * Guarantees:
 * - It names everything mcpctl reaches for the server: the command (args, cwd), or the server
 *   URL and, when the server signs in with OAuth, its authorization, token and registration
 *   endpoints (as configured, or "from the server's OAuth metadata").
 * - It names whatever else decides what runs or where data goes (`inputs`): a language
 *   server's `initializationOptions`, `settings` and `extensionToLanguage`, whole (never cut:
 *   a cut value could hide the path that runs); and, from a gated scope (`project`,
 *   `workspace`: the repository's text, which anyone with the checkout can read), every `env`
 *   value as the file writes it. Of a language server's entry, everything in its approval hash
 *   that changes what runs is shown; not shown are only timeouts, restart policy, `disabled`,
 *   the socket/tcp fields (validation refuses them) and unknown fields (never read).
 * - Text is the file's: a `${VAR}` reference is shown as written, and every variable that
 *   leaves is named in a plain sentence, `sends $VAR to HOST (where)` (to a local command:
 *   `passes $VAR to the command (where)`). A literal value that may be a secret is never
 *   shown: it is `<redacted>`, and a sentence says that a hidden value is sent, and where.
 *   Those are header values, URL userinfo, query values and fragment, the client secret (they
 *   go to the host shown and decide nothing about where; a repository may have committed a
 *   token there), and the `env` values of the user's own scopes (their secrets).
 * - Every value is JSON-quoted and escaped (escape.ts `quoted`; hosts are shown bare only when
 *   they hold nothing but host characters), so spaces, quotes, control, bidi and zero-width
 *   characters in a file cannot make one line read as another.
 * - From a gated scope, `warnings` call out: a configured OAuth endpoint on another host than
 *   the server's (mcpctl uses it only where the authorization server's metadata agrees); an
 *   `env` variable that changes what the runtime loads, where its connections go or what it
 *   trusts (runtime-env.ts), literal or `${VAR}`; and each string of a language server's
 *   options and settings that names a file, a program or an address (at most
 *   MAX_OPTION_WARNINGS, then how many more: all of them are in `inputs` anyway).
 * - `fields` alone name the config in one line (`summaryLine`, events and errors): `inputs`
 *   are for the person deciding, and reach no event or log.
 */
import {
  referenceNames,
  syntaxOfField,
  syntaxOfScope,
  type ExpansionSyntax,
} from './env-expansion.js';
import { escapeField, quoted } from './escape.js';
import { OAUTH_ENDPOINT_FIELDS, oauthTargetOf, type OAuthEndpointField } from './oauth.js';
import { REDACTED, hostOfUrl, redactUrl, shownAsWritten } from './redact.js';
import type { LanguageServerConfig } from './lsp-config.js';
import { runtimeEffectOf } from './runtime-env.js';
import type { McpServerConfig } from './server-config.js';
import { isGatedScope, type Scope } from './scope.js';
import { urlOf } from './transport.js';

export interface Disclosure {
  /** Labelled facts, in order: `command`, `args`, `cwd`; or `url` and the OAuth endpoints. */
  readonly fields: ReadonlyArray<readonly [label: string, value: string]>;
  /**
   * What else decides what runs or where data goes, labelled: `env` (`NAME="value"`, from a
   * gated scope only), `initializationOptions`, `settings`, `extensions` (compact JSON).
   */
  readonly inputs: ReadonlyArray<readonly [label: string, value: string]>;
  /** One sentence per value that leaves: `sends $GITHUB_TOKEN to api.test (header "X-Tok")`. */
  readonly sends: readonly string[];
  /** What the person deciding should look at twice. */
  readonly warnings: readonly string[];
}

const q = quoted;
const HIDDEN_VALUE = 'a value written in the file';
const ENDPOINT_LABELS: Record<OAuthEndpointField, string> = {
  authorizationUrl: 'sign-in',
  tokenUrl: 'token',
  registrationUrl: 'registration',
};

/** A host as a sentence shows it: bare when it is plainly a host, else quoted. */
function shownHost(host: string): string {
  return /^[A-Za-z0-9.:_\-[\]${}]+$/.test(host) ? host : q(host);
}

/** Variables (and a hidden literal) of one value, as sentences `<verb> … to <to> (<where>)`. */
function sentencesOf(
  value: string,
  syntax: ExpansionSyntax,
  verb: string,
  to: string,
  where: string,
  literalIsSecret: boolean,
): string[] {
  const out = referenceNames(value, syntax).map((name) => `${verb} $${name} to ${to} (${where})`);
  if (literalIsSecret && !shownAsWritten(value, syntax))
    out.push(`${verb} ${HIDDEN_VALUE} to ${to} (${where}, hidden)`);
  return out;
}

/** A variable's name as a line shows it: bare when it is a plain name, else quoted. */
function shownName(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : q(name);
}

function localDisclosure(
  config: McpServerConfig,
  scope: Scope,
  syntax: ExpansionSyntax,
): Disclosure {
  const fields: Array<readonly [string, string]> = [
    ['command', q(config.command ?? '')],
    ['args', escapeField(JSON.stringify(config.args ?? []))],
  ];
  if (config.cwd !== undefined) fields.push(['cwd', q(config.cwd)]);
  const to = 'the command';
  const sends: string[] = [];
  const plain = (value: string, field: string, where: string) =>
    sends.push(...sentencesOf(value, syntaxOfField(syntax, field), 'passes', to, where, false));
  plain(config.command ?? '', 'command', 'command');
  for (const arg of config.args ?? []) plain(arg, 'args', 'args');
  if (config.cwd !== undefined) plain(config.cwd, 'cwd', 'cwd');
  // A gated file's env values are the repository's text, shown; the user's own stay hidden.
  const gated = isGatedScope(scope);
  const inputs: Array<readonly [string, string]> = [];
  const warnings: string[] = [];
  for (const [key, value] of Object.entries(config.env ?? {})) {
    if (gated) inputs.push(['env', `${shownName(key)}=${q(value)}`]);
    sends.push(
      ...sentencesOf(value, syntaxOfField(syntax, 'env'), 'passes', to, `env ${q(key)}`, !gated),
    );
    const effect = gated ? runtimeEffectOf(key) : undefined;
    if (effect !== undefined) warnings.push(`env ${shownName(key)} ${effect}`);
  }
  return { fields, inputs, sends: unique(sends), warnings };
}

function remoteDisclosure(
  config: McpServerConfig,
  scope: Scope,
  syntax: ExpansionSyntax,
): Disclosure {
  const url = urlOf(config) ?? '';
  const urlSyntax = syntaxOfField(syntax, config.httpUrl !== undefined ? 'httpUrl' : 'url');
  const shownUrl = redactUrl(url, urlSyntax);
  const host = hostOfUrl(url, urlSyntax);
  const to = host === undefined ? 'the server' : shownHost(host);
  const fields: Array<readonly [string, string]> = [['url', q(shownUrl)]];
  const sends = referenceNames(url, urlSyntax).map((n) => `sends $${n} to ${to} (in the URL)`);
  if (shownUrl.includes(REDACTED))
    sends.push(`sends ${HIDDEN_VALUE} to ${to} (in the URL, hidden)`);
  for (const [key, value] of Object.entries(config.headers ?? {}))
    sends.push(
      ...sentencesOf(
        value,
        syntaxOfField(syntax, 'headers'),
        'sends',
        to,
        `header ${q(key)}`,
        true,
      ),
    );
  const warnings: string[] = [];
  if (oauthTargetOf(config, scope) !== undefined) {
    const oauth = oauthDisclosure(config, syntaxOfField(syntax, 'oauth'), to, host);
    fields.push(...oauth.fields);
    sends.push(...oauth.sends);
    if (isGatedScope(scope)) warnings.push(...oauth.warnings);
  }
  return { fields, inputs: [], sends: unique(sends), warnings };
}

/** The OAuth endpoints, what goes to them, and which are on another host than the server's. */
function oauthDisclosure(
  config: McpServerConfig,
  syntax: ExpansionSyntax,
  serverTo: string,
  serverHost: string | undefined,
): Disclosure {
  const block: Record<string, unknown> = config.oauth ?? {};
  const text = (key: string): string | undefined => {
    const v = block[key];
    return typeof v === 'string' && v !== '' ? v : undefined;
  };
  const fields: Array<readonly [string, string]> = [];
  const warnings: string[] = [];
  const fromMetadata = `from the OAuth metadata ${serverTo} publishes`;
  for (const field of OAUTH_ENDPOINT_FIELDS) {
    const configured = text(field);
    if (configured === undefined) {
      const none = field === 'registrationUrl' && text('clientId') !== undefined;
      fields.push([ENDPOINT_LABELS[field], none ? 'none (oauth.clientId is set)' : fromMetadata]);
      continue;
    }
    fields.push([ENDPOINT_LABELS[field], `${q(redactUrl(configured, syntax))} (oauth.${field})`]);
    const host = hostOfUrl(configured, syntax);
    if (host !== serverHost)
      warnings.push(
        `oauth.${field} points to another host (${shownHost(host ?? redactUrl(configured, syntax))}) than the server (${serverTo}); mcpctl uses it only if the authorization server's published metadata names that host`,
      );
  }
  const tokenUrl = text('tokenUrl');
  const tokenHost = tokenUrl === undefined ? undefined : hostOfUrl(tokenUrl, syntax);
  const tokenTo =
    tokenUrl === undefined
      ? `the token endpoint in the OAuth metadata of ${serverTo}`
      : shownHost(tokenHost ?? redactUrl(tokenUrl, syntax));
  const sends = [`sends OAuth sign-in codes and refresh tokens to ${tokenTo}`];
  const secret = text('clientSecret');
  if (secret !== undefined)
    sends.push(...sentencesOf(secret, syntax, 'sends', tokenTo, 'oauth.clientSecret', true));
  for (const [key, value] of Object.entries(block)) {
    if (key === 'clientSecret' || key === 'redirectUri') continue;
    if ((OAUTH_ENDPOINT_FIELDS as readonly string[]).includes(key)) continue;
    const strings = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
    for (const s of strings)
      if (typeof s === 'string')
        sends.push(
          ...sentencesOf(s, syntax, 'sends', 'the authorization server', `oauth.${key}`, false),
        );
  }
  return { fields, inputs: [], sends, warnings };
}

function unique(lines: readonly string[]): string[] {
  return [...new Set(lines)];
}

/** The disclosure of a server's config as its file writes it; `scope` says which file that is. */
export function disclosureOf(
  config: McpServerConfig,
  scope: Scope,
  syntax: ExpansionSyntax = syntaxOfScope(scope),
): Disclosure {
  return config.command !== undefined
    ? localDisclosure(config, scope, syntax)
    : remoteDisclosure(config, scope, syntax);
}

/** Of a language server's options and settings, at most this many strings are called out. */
export const MAX_OPTION_WARNINGS = 20;

/** The language server fields sent to it as data, shown whole under these labels. */
const LSP_INPUTS = [
  ['initializationOptions', 'initializationOptions'],
  ['settings', 'settings'],
  ['extensionToLanguage', 'extensions'],
] as const;

/** Option keys whose string value names a path or program, whatever the value looks like. */
const PROGRAM_KEY =
  /(path|command|cmd|exe|executable|binary|bin|program|script|interpreter|runtime|tsdk|jar|home|location|dir|directory)s?$/i;
/** A URL of a scheme that reaches somewhere (a `file:` URL is a file). */
const ADDRESS = /^(?!file:)[a-z][a-z0-9+.-]*:\/\//i;
/** A path: a separator, `~`, `.` or `..`; a glob (`**\/*.ts`) is a pattern, not a file. */
const FILE_LIKE = /^(?!.*\*)(?:.*[\\/]|~|\.\.?$)/;

/** A key of an options path: bare when plainly a key (`tsserver`, `python.analysis`), else quoted. */
function pathKey(key: string): string {
  return /^[A-Za-z_$][\w$.-]*$/.test(key) ? `.${key}` : `[${q(key)}]`;
}

interface NamingLeaf {
  /** Where in the entry: `initializationOptions.tsserver.path`. */
  readonly at: string;
  readonly names: 'a file or program' | 'an address';
  readonly text: string;
}

/** The strings in `value` (found at `at`, under `key`) that name a file, program or address. */
function namingLeaves(value: unknown, at: string, key: string, out: NamingLeaf[]): void {
  if (typeof value === 'string') {
    if (value.trim() === '') return;
    if (ADDRESS.test(value)) out.push({ at, names: 'an address', text: value });
    else if (FILE_LIKE.test(value) || PROGRAM_KEY.test(key))
      out.push({ at, names: 'a file or program', text: value });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => namingLeaves(item, `${at}[${i}]`, key, out));
  } else if (value !== null && typeof value === 'object') {
    for (const [k, item] of Object.entries(value)) namingLeaves(item, `${at}${pathKey(k)}`, k, out);
  }
}

/**
 * A language server's disclosure: the local command it is, its workspace folder where an MCP
 * server's cwd goes (what runs, and where, is what a person judges), and what it is given as
 * data: its initializationOptions, settings and extensions, whole (see the module doc).
 */
export function languageServerDisclosureOf(config: LanguageServerConfig, scope: Scope): Disclosure {
  const base = disclosureOf(
    {
      ...(config.command !== undefined ? { command: config.command } : {}),
      ...(config.args !== undefined ? { args: config.args } : {}),
      ...(config.env !== undefined ? { env: config.env } : {}),
      ...(config.workspaceFolder !== undefined ? { cwd: config.workspaceFolder } : {}),
    },
    scope,
  );
  const inputs = [...base.inputs];
  const leaves: NamingLeaf[] = [];
  for (const [field, label] of LSP_INPUTS) {
    const value: unknown = config[field];
    if (value === undefined) continue;
    inputs.push([label, escapeField(JSON.stringify(value))]);
    if (field !== 'extensionToLanguage') namingLeaves(value, field, field, leaves);
  }
  const warnings = [...base.warnings];
  if (isGatedScope(scope)) {
    for (const leaf of leaves.slice(0, MAX_OPTION_WARNINGS)) {
      const does = leaf.names === 'an address' ? 'connect to' : 'run or load';
      warnings.push(
        `${leaf.at} names ${leaf.names} the language server may ${does}: ${q(leaf.text)}`,
      );
    }
    if (leaves.length > MAX_OPTION_WARNINGS)
      warnings.push(
        `${leaves.length - MAX_OPTION_WARNINGS} more option values name files, programs or addresses (all are shown above)`,
      );
  }
  return { ...base, inputs, warnings };
}

/** The disclosure as lines (labelled fields and inputs, then sentences, then warnings). */
export function disclosureLines(d: Disclosure): string[] {
  const labelled = [...d.fields, ...d.inputs];
  const width = Math.max(0, ...labelled.map(([label]) => label.length + 1));
  return [
    ...labelled.map(([label, value]) => `${`${label}:`.padEnd(width)} ${value}`),
    ...d.sends,
    ...d.warnings.map((w) => `warning: ${w}`),
  ];
}

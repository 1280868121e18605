/**
 * What a server will run or contact, and what it will send where, as its file writes it: the
 * one description every surface shows (the approval question the gateway asks, `mcpctl
 * approve`/`reject`, `mcpctl describe`), so they cannot disagree.
 *
 * Guarantees:
 * - It names everything mcpctl reaches for the server: the command (args, cwd), or the server
 *   URL and, when the server signs in with OAuth, its authorization, token and registration
 *   endpoints (as configured, or "from the server's OAuth metadata").
 * - Text is the file's: a `${VAR}` reference is shown as written, and every variable that
 *   leaves is named in a plain sentence, `sends $VAR to HOST (where)` (to a local command:
 *   `passes $VAR to the command (where)`). A literal value that may be a secret (env and
 *   header values, URL userinfo, query values and fragment, the client secret) is never shown:
 *   it is `<redacted>`, and a sentence says that a hidden value is sent, and where.
 * - Every value is JSON-quoted (hosts are shown bare only when they hold nothing but host
 *   characters), so spaces, quotes and control characters in a file cannot make one line read
 *   as another.
 * - From a gated scope, a configured OAuth endpoint on another host than the server's is called
 *   out in `warnings`: mcpctl uses it only where the authorization server's metadata agrees.
 */
import {
  referenceNames,
  syntaxOfField,
  syntaxOfScope,
  type ExpansionSyntax,
} from './env-expansion.js';
import { OAUTH_ENDPOINT_FIELDS, oauthTargetOf, type OAuthEndpointField } from './oauth.js';
import { REDACTED, hostOfUrl, redactUrl, shownAsWritten } from './redact.js';
import type { LanguageServerConfig } from './lsp-config.js';
import type { McpServerConfig } from './server-config.js';
import { isGatedScope, type Scope } from './scope.js';
import { urlOf } from './transport.js';

export interface Disclosure {
  /** Labelled facts, in order: `command`, `args`, `cwd`; or `url` and the OAuth endpoints. */
  readonly fields: ReadonlyArray<readonly [label: string, value: string]>;
  /** One sentence per value that leaves: `sends $GITHUB_TOKEN to api.test (header "X-Tok")`. */
  readonly sends: readonly string[];
  /** What the person deciding should look at twice. */
  readonly warnings: readonly string[];
}

const q = (text: string): string => JSON.stringify(text);
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

function localDisclosure(config: McpServerConfig, syntax: ExpansionSyntax): Disclosure {
  const fields: Array<readonly [string, string]> = [
    ['command', q(config.command ?? '')],
    ['args', JSON.stringify(config.args ?? [])],
  ];
  if (config.cwd !== undefined) fields.push(['cwd', q(config.cwd)]);
  const to = 'the command';
  const sends: string[] = [];
  const plain = (value: string, field: string, where: string) =>
    sends.push(...sentencesOf(value, syntaxOfField(syntax, field), 'passes', to, where, false));
  plain(config.command ?? '', 'command', 'command');
  for (const arg of config.args ?? []) plain(arg, 'args', 'args');
  if (config.cwd !== undefined) plain(config.cwd, 'cwd', 'cwd');
  for (const [key, value] of Object.entries(config.env ?? {}))
    sends.push(
      ...sentencesOf(value, syntaxOfField(syntax, 'env'), 'passes', to, `env ${q(key)}`, true),
    );
  return { fields, sends: unique(sends), warnings: [] };
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
  return { fields, sends: unique(sends), warnings };
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
  return { fields, sends, warnings };
}

function unique(lines: readonly string[]): string[] {
  return [...new Set(lines)];
}

/** The disclosure of a server's config as its file writes it; `scope` says which file that is. */
export function disclosureOf(config: McpServerConfig, scope: Scope): Disclosure {
  const syntax = syntaxOfScope(scope);
  return config.command !== undefined
    ? localDisclosure(config, syntax)
    : remoteDisclosure(config, scope, syntax);
}

/**
 * A language server's disclosure: the local command it is, its workspace folder where an MCP
 * server's cwd goes (what runs, and where, is what a person judges).
 */
export function languageServerDisclosureOf(config: LanguageServerConfig, scope: Scope): Disclosure {
  return disclosureOf(
    {
      ...(config.command !== undefined ? { command: config.command } : {}),
      ...(config.args !== undefined ? { args: config.args } : {}),
      ...(config.env !== undefined ? { env: config.env } : {}),
      ...(config.workspaceFolder !== undefined ? { cwd: config.workspaceFolder } : {}),
    },
    scope,
  );
}

/** The disclosure as lines (labelled fields, then sentences, then warnings), unindented. */
export function disclosureLines(d: Disclosure): string[] {
  const width = Math.max(0, ...d.fields.map(([label]) => label.length + 1));
  return [
    ...d.fields.map(([label, value]) => `${`${label}:`.padEnd(width)} ${value}`),
    ...d.sends,
    ...d.warnings.map((w) => `warning: ${w}`),
  ];
}

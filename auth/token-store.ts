/**
 * The daemon's OAuth grant store: `~/.mcpctl/oauth-tokens.json` (DESIGN §5 "One login per
 * server per machine").
 *
 * Guarantees:
 * - The file holds secrets (access and refresh tokens, registered client secrets): it is
 *   written with mode 0600 in a folder of mode 0700 (a folder we find more open is narrowed
 *   to 0700, since it is ours), always as a whole new file renamed over the old one (a reader
 *   sees the old content or the new, never a mix; a crash keeps the old).
 * - It is read only when it is a regular file and never through a symbolic link (O_NOFOLLOW,
 *   then fstat on the open handle), and never written over a link or a non-regular file: a
 *   link would let whoever controls its target read or plant our tokens.
 * - Every read-modify-write holds a sibling lock directory (`<file>.lock`, proper-lockfile),
 *   like the approvals file, so two daemons or a CLI never lose each other's writes.
 * - Keyed by server URL, then client id; `dynamic` names the client registered for that URL.
 * - A corrupt file reads as empty (so a login can repair it) and is never parsed into errors
 *   that quote its content: no token ends up in a message.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import type { OAuthGrant, OAuthGrantStore } from './grant.js';
import { isObject, readPrivateFile, replaceFile as writeWhole } from '../api/index.js';

export const TOKENS_FILE_MODE = 0o600;
export const TOKENS_DIR_MODE = 0o700;

interface ServerGrants {
  dynamic?: string;
  clients: Record<string, OAuthGrant>;
}

interface TokensFile {
  version: 1;
  servers: Record<string, ServerGrants>;
}

/** The store's file is a link, a FIFO, a directory...: not read, not written. */
export class TokenFileError extends Error {
  override name = 'TokenFileError';
}

/** `~/.mcpctl/oauth-tokens.json` of `home`. */
export function defaultTokensPath(home: string = os.homedir()): string {
  return path.join(home, '.mcpctl', 'oauth-tokens.json');
}

export class FileGrantStore implements OAuthGrantStore {
  readonly path: string;

  constructor(file: string) {
    this.path = file;
  }

  async get(serverUrl: string, clientId: string | undefined): Promise<OAuthGrant | undefined> {
    const content = await readTokensFile(this.path);
    const server = content.servers[serverUrl];
    const id = clientId ?? server?.dynamic;
    return id === undefined ? undefined : server?.clients[id];
  }

  async put(serverUrl: string, grant: OAuthGrant, dynamic: boolean): Promise<void> {
    await this.#update((content) => {
      const server = (content.servers[serverUrl] ??= { clients: {} });
      // A new dynamic registration replaces the previous one: its grant is of no more use.
      if (dynamic && server.dynamic !== undefined && server.dynamic !== grant.clientId)
        delete server.clients[server.dynamic];
      server.clients[grant.clientId] = grant;
      if (dynamic) server.dynamic = grant.clientId;
      return true;
    });
  }

  async remove(serverUrl: string, clientId: string | undefined): Promise<boolean> {
    let removed = false;
    await this.#update((content) => {
      const server = content.servers[serverUrl];
      const id = clientId ?? server?.dynamic;
      if (!server || id === undefined || !(id in server.clients)) return false;
      delete server.clients[id];
      if (server.dynamic === id) delete server.dynamic;
      if (Object.keys(server.clients).length === 0) delete content.servers[serverUrl];
      removed = true;
      return true;
    });
    return removed;
  }

  async #update(change: (content: TokensFile) => boolean): Promise<void> {
    await ensurePrivateDir(path.dirname(this.path));
    const release = await lockfile.lock(this.path, {
      lockfilePath: `${this.path}.lock`,
      realpath: false,
      stale: 10_000,
      retries: { retries: 300, minTimeout: 5, maxTimeout: 100, maxRetryTime: 15_000 },
    });
    try {
      const content = await readTokensFile(this.path);
      if (change(content)) await replaceFile(this.path, `${JSON.stringify(content, null, 2)}\n`);
    } finally {
      await release().catch(() => undefined);
    }
  }
}

async function ensurePrivateDir(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: TOKENS_DIR_MODE });
  const stat = await fs.lstat(dir);
  if (!stat.isDirectory())
    throw new TokenFileError(`${dir} is not a directory; the OAuth token store needs it to be one`);
  if ((stat.mode & 0o077) !== 0) await fs.chmod(dir, TOKENS_DIR_MODE);
}

/** The file's content; missing or corrupt → empty. A link or non-regular file throws. */
export async function readTokensFile(file: string): Promise<TokensFile> {
  const read = await readPrivateFile(file);
  if (read.kind === 'missing') return empty();
  if (read.kind === 'link')
    throw new TokenFileError(
      `${file} is a symbolic link; mcpctl keeps OAuth tokens only in a regular file, because a link lets whoever controls its target read or plant them: remove the link`,
    );
  if (read.kind === 'notRegular')
    throw new TokenFileError(
      `${file} is not a regular file; mcpctl keeps OAuth tokens only in a regular file: remove it`,
    );
  return parseTokens(read.text);
}

function empty(): TokensFile {
  return { version: 1, servers: {} };
}

/** Keeps what has the right shape; never throws (and so never quotes a token). */
function parseTokens(text: string): TokensFile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return empty();
  }
  const out = empty();
  if (!isObject(raw) || !isObject(raw.servers)) return out;
  for (const [url, s] of Object.entries(raw.servers)) {
    if (!isObject(s) || !isObject(s.clients)) continue;
    const clients: Record<string, OAuthGrant> = {};
    for (const [id, g] of Object.entries(s.clients)) {
      if (!isObject(g) || g.clientId !== id) continue;
      clients[id] = {
        clientId: id,
        ...(isObject(g.client) ? { client: g.client } : {}),
        ...(isObject(g.tokens) ? { tokens: g.tokens } : {}),
        ...(typeof g.obtainedAt === 'number' ? { obtainedAt: g.obtainedAt } : {}),
      };
    }
    out.servers[url] = {
      clients,
      ...(typeof s.dynamic === 'string' && s.dynamic in clients ? { dynamic: s.dynamic } : {}),
    };
  }
  return out;
}

async function replaceFile(file: string, text: string): Promise<void> {
  // Never write over a link or a non-regular file (rename would replace a link, but a
  // planted name there means someone is playing with our folder: refuse and say so).
  const existing = await fs.lstat(file).catch(() => undefined);
  if (existing && !existing.isFile())
    throw new TokenFileError(
      `${file} is not a regular file; remove it so mcpctl can keep OAuth tokens there`,
    );
  await writeWhole(file, text, TOKENS_FILE_MODE);
}

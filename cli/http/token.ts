/**
 * The bearer token of the daemon's HTTP endpoint: `~/.mcpctl/http-token`.
 *
 * Guarantees:
 * - `ensureToken` returns the token in the file, making one first when there is none: 32 random
 *   bytes (base64url), written to a temporary file of mode 0600 created exclusively, then linked
 *   into place, so the file appears whole or not at all and two starts racing end with one token.
 *   A missing directory is created with mode 0700.
 * - The file is never read or written through a symbolic link: a link in its place (dangling or
 *   not), a file that is not a regular file, one owned by another user or readable or writable
 *   by anyone but its owner (any of mode 077), or one that holds no token is refused with a
 *   `TokenFileError` naming the file, what is wrong and the fix. Nothing is changed then.
 * - The directory must be ours and not writable by group or others (someone who can write it
 *   could swap the file); it is never changed on the user's behalf.
 * - The token itself appears in no message.
 * - `tokenMatches` compares in constant time (sha256 of both sides, then timingSafeEqual), so
 *   neither the token's length nor a matching prefix shows in how long a refusal takes.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { messageOf } from '../../api/message-of.js';

/** Where the token lives under the user's home. */
export function tokenPath(home: string): string {
  return path.join(home, '.mcpctl', 'http-token');
}

export class TokenFileError extends Error {
  override name = 'TokenFileError';
}

/** Larger than any token we write or accept; a bigger file is not read. */
const MAX_FILE_BYTES = 4096;
/** What a token may look like (ours is 43 base64url characters). */
const TOKEN_SHAPE = /^[A-Za-z0-9._~+/=-]{16,1024}$/;

const REMAKE = 'remove it, and mcpctl makes a new token at the next start (or `mcpctl token`)';

/**
 * The token in `file`, made first when there is none.
 * @throws TokenFileError (see the guarantees above).
 */
export function ensureToken(file: string): string {
  checkDirectory(path.dirname(file));
  const existing = readToken(file);
  if (existing !== undefined) return existing;
  const token = randomBytes(32).toString('base64url');
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  try {
    const fd = openSync(temp, flags, 0o600);
    try {
      writeSync(fd, `${token}\n`);
    } finally {
      closeSync(fd);
    }
    // link() never follows a link at the destination and fails when anything is there.
    linkSync(temp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST')
      throw new TokenFileError(`cannot write the HTTP token file ${file}: ${messageOf(err)}`);
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // Not made, or already gone.
    }
  }
  // Ours, or the one another start linked in first: either way, read what is there now.
  const written = readToken(file);
  if (written === undefined)
    throw new TokenFileError(`the HTTP token file ${file} vanished while it was being made`);
  return written;
}

/**
 * The token in `file`, or undefined when there is no file.
 * @throws TokenFileError for a file that may not be trusted or holds no token.
 */
export function readToken(file: string): string | undefined {
  let st;
  try {
    st = lstatSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new TokenFileError(`cannot read the HTTP token file ${file}: ${messageOf(err)}`);
  }
  if (st.isSymbolicLink())
    throw new TokenFileError(
      `the HTTP token file ${file} is a symbolic link; mcpctl never reads its token through one: ${REMAKE}`,
    );
  if (!st.isFile())
    throw new TokenFileError(`the HTTP token file ${file} is not a regular file: ${REMAKE}`);
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP')
      throw new TokenFileError(
        `the HTTP token file ${file} is a symbolic link; mcpctl never reads its token through one: ${REMAKE}`,
      );
    throw new TokenFileError(`cannot read the HTTP token file ${file}: ${messageOf(err)}`);
  }
  try {
    // What is open now is what is checked (the path may have changed since lstat).
    const opened = fstatSync(fd);
    if (!opened.isFile())
      throw new TokenFileError(`the HTTP token file ${file} is not a regular file: ${REMAKE}`);
    const uid = process.getuid?.();
    if (uid !== undefined && opened.uid !== uid)
      throw new TokenFileError(
        `the HTTP token file ${file} is owned by uid ${opened.uid}, not by you (uid ${uid}); refusing to use it: ${REMAKE}`,
      );
    if ((opened.mode & 0o077) !== 0)
      throw new TokenFileError(
        `the HTTP token file ${file} has mode ${(opened.mode & 0o777).toString(8)}: others may read or change it; refusing to use it. Run 'chmod 600 ${file}' if nobody else could have read it, else ${REMAKE}`,
      );
    if (opened.size > MAX_FILE_BYTES)
      throw new TokenFileError(`the HTTP token file ${file} holds no token: ${REMAKE}`);
    const buffer = Buffer.alloc(MAX_FILE_BYTES + 1);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    const token = buffer.subarray(0, n).toString('utf8').trim();
    if (!TOKEN_SHAPE.test(token))
      throw new TokenFileError(`the HTTP token file ${file} holds no token: ${REMAKE}`);
    return token;
  } finally {
    closeSync(fd);
  }
}

const digestOf = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** Compares a presented token with ours in constant time. */
export function tokenMatches(given: string, token: string): boolean {
  return tokenMatcher(token)(given);
}

/** `tokenMatches` against one token, whose digest is made once (the endpoint's, per request). */
export function tokenMatcher(token: string): (given: string) => boolean {
  const ours = digestOf(token);
  return (given) => timingSafeEqual(digestOf(given), ours);
}

/** The token of an `Authorization: Bearer …` header, or undefined. */
export function bearerOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const m = /^Bearer +(\S+) *$/i.exec(header);
  return m ? m[1] : undefined;
}

function checkDirectory(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new TokenFileError(`cannot create ${dir} for the HTTP token: ${messageOf(err)}`);
  }
  const st = lstatSync(dir);
  if (!st.isDirectory())
    throw new TokenFileError(
      `${dir} (where the HTTP token lives) is not a directory; make it one of your own (mode 700)`,
    );
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid)
    throw new TokenFileError(
      `${dir} (where the HTTP token lives) is owned by uid ${st.uid}, not by you (uid ${uid}); refusing to use it`,
    );
  if ((st.mode & 0o022) !== 0)
    throw new TokenFileError(
      `${dir} (where the HTTP token lives) is writable by ${st.mode & 0o002 ? 'everyone' : 'its group'} (mode ${(st.mode & 0o7777).toString(8)}), who could replace the token; run 'chmod 700 ${dir}'`,
    );
}

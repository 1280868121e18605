/**
 * Where the daemon's HTTP endpoint listens (`mcpctl daemon --http [HOST:]PORT`), and which host
 * names and origins count as this machine's own.
 *
 * Guarantees:
 * - `parseListenAddress`: `PORT` alone means 127.0.0.1; `HOST:PORT`, `[V6]:PORT` name the host;
 *   a port is a whole number 0–65535 (0: the system picks a free one, the daemon logs which). A
 *   bad value is an error naming the value and the form.
 * - `isLoopbackHost` is true only for `localhost`, `127.0.0.0/8` and `::1` (a bound address or a
 *   `Host` header's name): nothing a remote machine or a DNS name of the attacker can be.
 * - `isLoopbackOrigin` is true only for an `http:`/`https:` origin whose host is loopback; the
 *   opaque origin `null` is not one.
 */
import { isIP } from 'node:net';

export interface ListenAddress {
  /** As given (brackets of an IPv6 address removed). */
  readonly host: string;
  readonly port: number;
}

export class ListenAddressError extends Error {
  override name = 'ListenAddressError';
}

const FORM = '[HOST:]PORT, e.g. 8765, 127.0.0.1:8765 or [::1]:8765';

/** @throws ListenAddressError naming the value and the expected form. */
export function parseListenAddress(text: string): ListenAddress {
  const value = text.trim();
  let host = '127.0.0.1';
  let portText = value;
  const v6 = /^\[([^\]]+)\]:(.*)$/.exec(value);
  if (v6) {
    host = v6[1] ?? '';
    portText = v6[2] ?? '';
    if (isIP(host) !== 6)
      throw new ListenAddressError(`--http ${text}: ${host} is not an IPv6 address; use ${FORM}`);
  } else if (value.includes(':')) {
    const at = value.lastIndexOf(':');
    host = value.slice(0, at);
    portText = value.slice(at + 1);
    if (host === '' || host.includes(':'))
      throw new ListenAddressError(
        `--http ${text}: put an IPv6 address in brackets, or give a host name; use ${FORM}`,
      );
  }
  const port = Number(portText);
  if (!/^\d{1,5}$/.test(portText) || port > 65535)
    throw new ListenAddressError(
      `--http ${text}: the port must be a number from 0 to 65535; use ${FORM}`,
    );
  return { host, port };
}

/** Is `host` (a name or address, without port or brackets) this machine's loopback? */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || h === '0:0:0:0:0:0:0:1';
  return false;
}

/**
 * The host name of a `Host` header (`name`, `name:port`, `[v6]`, `[v6]:port`), or undefined
 * when the header is not of that form.
 */
export function hostOfHeader(header: string): string | undefined {
  const v6 = /^\[([0-9a-fA-F:.]+)\](?::\d{1,5})?$/.exec(header);
  if (v6) return v6[1];
  const named = /^([^:[\]\s/@]+)(?::\d{1,5})?$/.exec(header);
  return named ? named[1] : undefined;
}

/** Is `origin` (an `Origin` header) a web origin served from this machine's loopback? */
export function isLoopbackOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return isLoopbackHost(host);
}

/** The URL clients use for an address (loopback wildcard or not, as bound). */
export function endpointUrl(host: string, port: number): string {
  const shown = isIP(host) === 6 ? `[${host}]` : host;
  return `http://${shown}:${port}/mcp`;
}

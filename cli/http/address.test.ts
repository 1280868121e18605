import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ListenAddressError,
  endpointUrl,
  hostOfHeader,
  isLoopbackHost,
  isLoopbackOrigin,
  parseListenAddress,
} from './address.js';

describe('http listen address', () => {
  it('a port alone binds 127.0.0.1; host:port and [v6]:port name the host', () => {
    assert.deepEqual(parseListenAddress('8765'), { host: '127.0.0.1', port: 8765 });
    assert.deepEqual(parseListenAddress('0'), { host: '127.0.0.1', port: 0 });
    assert.deepEqual(parseListenAddress('localhost:80'), { host: 'localhost', port: 80 });
    assert.deepEqual(parseListenAddress('0.0.0.0:9'), { host: '0.0.0.0', port: 9 });
    assert.deepEqual(parseListenAddress('[::1]:8765'), { host: '::1', port: 8765 });
  });

  it('refuses what is not [HOST:]PORT, naming the form', () => {
    for (const bad of ['', 'abc', '65536', '-1', ':80', '::1:80', '[x]:80', 'host:', '1.5'])
      assert.throws(() => parseListenAddress(bad), ListenAddressError, bad);
    assert.throws(() => parseListenAddress('99999'), /\[HOST:\]PORT/);
  });

  it('loopback hosts are localhost, 127/8 and ::1 only', () => {
    for (const h of ['localhost', 'LOCALHOST', '127.0.0.1', '127.1.2.3', '::1'])
      assert.equal(isLoopbackHost(h), true, h);
    for (const h of [
      '0.0.0.0',
      '::',
      '10.0.0.1',
      'evil.example',
      'localhost.evil.example',
      '128.0.0.1',
      '::ffff:127.0.0.1x',
    ])
      assert.equal(isLoopbackHost(h), false, h);
  });

  it('reads the host name of a Host header, port or not', () => {
    assert.equal(hostOfHeader('127.0.0.1:8765'), '127.0.0.1');
    assert.equal(hostOfHeader('localhost'), 'localhost');
    assert.equal(hostOfHeader('[::1]:8765'), '::1');
    assert.equal(hostOfHeader('evil.example'), 'evil.example');
    assert.equal(hostOfHeader('a@127.0.0.1'), undefined);
    assert.equal(hostOfHeader('127.0.0.1:80:80'), undefined);
    assert.equal(hostOfHeader(''), undefined);
  });

  it('loopback origins: http(s) on a loopback host; null and other schemes are not', () => {
    for (const o of ['http://localhost:3000', 'https://127.0.0.1', 'http://[::1]:8080'])
      assert.equal(isLoopbackOrigin(o), true, o);
    for (const o of [
      'null',
      'http://evil.example',
      'http://127.0.0.1.evil.example',
      'file://',
      'chrome-extension://abc',
      'vscode-webview://x',
    ])
      assert.equal(isLoopbackOrigin(o), false, o);
  });

  it('names the endpoint URL', () => {
    assert.equal(endpointUrl('127.0.0.1', 1), 'http://127.0.0.1:1/mcp');
    assert.equal(endpointUrl('::1', 2), 'http://[::1]:2/mcp');
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listenForRedirect, RedirectError } from './redirect-listener.js';

describe('listenForRedirect', () => {
  it('takes one redirect with the right state and closes', { timeout: 10_000 }, async () => {
    const l = await listenForRedirect();
    assert.match(l.redirectUri, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const code = l.waitForCode('S1', 5000);
    const stray = await fetch(new URL('/favicon.ico', l.redirectUri));
    assert.equal(stray.status, 404, 'another path changes nothing');
    await stray.text();
    const ok = await fetch(`${l.redirectUri}?state=S1&code=C1`);
    assert.equal(ok.status, 200);
    assert.doesNotMatch(await ok.text(), /C1/, 'the answer does not echo the code');
    assert.equal(await code, 'C1');
    await assert.rejects(fetch(`${l.redirectUri}?state=S1&code=C2`), 'closed after one use');
    await l.close();
  });

  it(
    'answers 400 to a stray redirect (wrong or missing state) and keeps waiting for the real one',
    { timeout: 10_000 },
    async () => {
      const l = await listenForRedirect();
      const code = l.waitForCode('S1', 5000);
      for (const stray of ['?state=S2&code=C1', '?code=C1', '', '?state=S2&error=access_denied']) {
        const bad = await fetch(`${l.redirectUri}${stray}`);
        assert.equal(bad.status, 400, `stray redirect ${JSON.stringify(stray)}`);
        const text = await bad.text();
        assert.match(text, /not the redirect of the login in progress/);
        assert.match(text, /still waiting/);
        assert.doesNotMatch(text, /C1/, 'the answer does not echo the code');
      }
      const ok = await fetch(`${l.redirectUri}?state=S1&code=C2`);
      assert.equal(ok.status, 200, 'the real redirect is still taken');
      await ok.text();
      assert.equal(await code, 'C2');
      await assert.rejects(fetch(`${l.redirectUri}?state=S1&code=C3`), 'closed after one use');
      await l.close();
    },
  );

  it(
    'an error redirect with the right state ends the login with that error',
    { timeout: 10_000 },
    async () => {
      const l = await listenForRedirect();
      const refused = assert.rejects(l.waitForCode('S1', 5000), /refused the login: access_denied/);
      const denied = await fetch(`${l.redirectUri}?state=S1&error=access_denied`);
      assert.equal(denied.status, 400);
      await denied.text();
      await refused;
      await assert.rejects(fetch(`${l.redirectUri}?state=S1&code=C1`), 'closed after it');
      await l.close();

      const l2 = await listenForRedirect();
      const noCode = assert.rejects(l2.waitForCode('S1', 5000), /no authorization code/);
      const empty = await fetch(`${l2.redirectUri}?state=S1`);
      assert.equal(empty.status, 400);
      await empty.text();
      await noCode;
      await l2.close();
    },
  );

  it('gives up after the timeout and stops listening', { timeout: 10_000 }, async () => {
    const l = await listenForRedirect();
    await assert.rejects(l.waitForCode('S1', 200), RedirectError);
    await assert.rejects(fetch(`${l.redirectUri}?state=S1&code=C1`));
    await l.close();
  });

  it(
    'close() ends a pending wait at once (no timer left) and stops listening',
    { timeout: 10_000 },
    async () => {
      const l = await listenForRedirect();
      // A wait of an hour: only close() can end it within the test's timeout.
      const waiting = assert.rejects(l.waitForCode('S1', 3_600_000), /cancelled/);
      await l.close();
      await waiting;
      await assert.rejects(fetch(`${l.redirectUri}?state=S1&code=C1`), 'nothing listens');
      await assert.rejects(l.waitForCode('S1', 3_600_000), /cancelled/, 'closed stays closed');
    },
  );

  it('accepts only a loopback http redirectUri with a port', async () => {
    await assert.rejects(listenForRedirect('https://example.com/cb'), /127\.0\.0\.1/);
    await assert.rejects(listenForRedirect('http://10.0.0.1:8080/cb'), /loopback/);
    await assert.rejects(listenForRedirect('http://127.0.0.1/cb'), /explicit port/);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { guardedLookup, isForbiddenAddress, urlProblem } from '@voice/kit';
import { endpointUrlRefusal } from '../src/domain/endpoint-url.js';

describe('address guard', () => {
  test('refuses loopback, private, link-local, CGNAT, metadata and reserved addresses', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '64:ff9b::a9fe:a9fe',
      'not-an-address',
    ]) {
      assert.equal(isForbiddenAddress(address), true, address);
    }
  });

  test('allows public addresses', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '93.184.216.34', '2606:4700:4700::1111']) {
      assert.equal(isForbiddenAddress(address), false, address);
    }
  });

  test('endpoint URLs: https in production, no private literals or local names', () => {
    const production = { requireHttps: true, allowPrivateAddresses: false };
    assert.equal(urlProblem('https://hooks.example.com/in', production), null);
    assert.equal(urlProblem('http://hooks.example.com/in', production), 'must use https');
    assert.match(urlProblem('https://127.0.0.1/in', production) ?? '', /private/);
    assert.match(urlProblem('https://[::1]:8443/in', production) ?? '', /private/);
    assert.match(urlProblem('https://169.254.169.254/latest', production) ?? '', /private/);
    // IPv6 forms that carry an IPv4 address (kit's table test lists them all).
    for (const url of [
      'http://[::127.0.0.1]/',
      'http://[::ffff:0:127.0.0.1]/',
      'http://[2002:7f00:1::]/',
      'http://[64:ff9b::a9fe:a9fe]/',
    ]) {
      assert.match(urlProblem(url, { requireHttps: false, allowPrivateAddresses: false }) ?? '', /private/, url);
    }
    assert.match(urlProblem('https://localhost/in', production) ?? '', /public host/);
    assert.match(urlProblem('https://metadata.google.internal/', production) ?? '', /public host/);
    assert.match(urlProblem('https://user:pw@hooks.example.com/', production) ?? '', /credentials/);
    assert.match(urlProblem('ftp://hooks.example.com/', production) ?? '', /https/);
  });

  test('the local-test setting allows private addresses and http outside production', () => {
    assert.equal(urlProblem('http://127.0.0.1:4000/in', { requireHttps: false, allowPrivateAddresses: true }), null);
  });

  test('a local receiver refused in development is told the setting that allows it; production names no setting', () => {
    const development = { requireHttps: false, allowPrivateAddresses: false };
    for (const url of ['http://127.0.0.1:4000/in', 'http://localhost:4000/in', 'http://[::1]:4000/in']) {
      const refusal = endpointUrlRefusal(url, development, false);
      assert.equal(refusal?.code, 'invalid_request', url);
      assert.equal(refusal?.param, 'url');
      assert.match(refusal?.message ?? '', /WEBHOOKS_ALLOW_PRIVATE_ADDRESSES=true/, url);
    }
    assert.doesNotMatch(endpointUrlRefusal('http://127.0.0.1:4000/in', development, true)?.message ?? '', /WEBHOOKS_/);
    // A problem the setting does not solve gets no hint.
    assert.doesNotMatch(endpointUrlRefusal('ftp://127.0.0.1/in', development, false)?.message ?? '', /WEBHOOKS_/);
    assert.equal(endpointUrlRefusal('https://hooks.example.com/in', development, false), null);
  });

  test('the connection lookup refuses a name that resolves to loopback', async () => {
    const lookup = guardedLookup(false);
    const error = await new Promise<Error | null>((resolve) => lookup('localhost', { all: true }, (failure) => resolve(failure)));
    assert.equal(error?.name, 'ForbiddenAddressError');
    const allowed = await new Promise<unknown>((resolve) => guardedLookup(true)('localhost', {}, (_failure, address) => resolve(address)));
    assert.ok(allowed === '127.0.0.1' || allowed === '::1', String(allowed));
  });
});

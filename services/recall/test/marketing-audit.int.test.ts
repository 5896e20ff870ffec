import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { HttpApp } from '@voice/kit';
import { gatewayHeaders, testIdentity } from '@voice/kit/testing';
import type { RecallDeps } from '../src/deps.js';
import { type Harness, startRecall } from './support/harness.js';

const page = `<!doctype html><html lang="en"><head>
<title>Acme Voice — AI receptionists</title>
<meta name="description" content="Acme Voice answers every call for clinics and books appointments, day and night.">
<meta name="viewport" content="width=device-width">
</head><body><h1>Never miss a call</h1></body></html>`;

describe('marketing audit', () => {
  let h: Harness;
  let deps: RecallDeps;
  let app: HttpApp;
  let site: Server;
  let siteUrl: string;
  let siteHits = 0;

  const audit = (url: string, forwardedFor: string) =>
    app.inject({ method: 'POST', url: '/api/public/marketing-audit', headers: { 'x-forwarded-for': forwardedFor }, payload: { url } });

  before(async () => {
    site = createServer((_request, response) => {
      siteHits++;
      response.writeHead(200, { 'content-type': 'text/html' }).end(page);
    });
    site.listen(0, '127.0.0.1');
    await once(site, 'listening');
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
    h = await startRecall({ PUBLIC_AUDIT_LIMIT: '3', PUBLIC_AUDIT_WINDOW_SECONDS: '600' }, (recallDeps) => {
      // The test site stands in for the public internet: this one address is allowed, every other private one is not.
      recallDeps.pageFetch.isAllowedAddress = (address) => address === '127.0.0.1';
    });
    ({ deps, app } = h);
  });

  after(async () => {
    await h?.close();
    site?.closeAllConnections();
    site?.close();
  });

  test('the public audit needs no key and reports its checks with rate-limit headers', async () => {
    const response = await audit(siteUrl, '198.51.100.1');
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.ok, true);
    assert.equal(body.status, 200);
    const byId = Object.fromEntries(body.checks.map((check: { id: string; passed: boolean }) => [check.id, check.passed]));
    assert.equal(byId.title, true);
    assert.equal(byId.meta_description, true);
    assert.equal(byId.h1, true);
    assert.equal(byId.https, false);
    assert.equal(byId.structured_data, false);
    assert.ok(body.score > 0 && body.score < 100);
    assert.match(body.notice, /coming soon/);
    assert.equal(response.headers['x-ratelimit-limit'], '3');
    assert.equal(response.headers['x-ratelimit-remaining'], '2');
    assert.equal(siteHits, 1);
  });

  test('an audit of the same URL is reused, so the audited site is fetched once', async () => {
    const first = (await audit(siteUrl, '198.51.100.3')).json();
    const second = (await audit(siteUrl, '198.51.100.4')).json();
    assert.equal(second.checked_at, first.checked_at);
    assert.equal(siteHits, 1);
  });

  test('private addresses written in the URL are refused with 400', async () => {
    for (const [index, url] of ['http://169.254.169.254/latest/meta-data/', 'http://[::127.0.0.1]/', 'http://localhost/'].entries()) {
      const response = await audit(url, `198.51.100.${20 + index}`);
      assert.equal(response.statusCode, 400, url);
      assert.equal(response.json().error.code, 'invalid_request', url);
      assert.equal(response.json().error.param, 'url', url);
    }
  });

  test('an anonymous caller never learns what a name resolves to, nor why a page could not be loaded', async (t) => {
    // The resolver of this process: one name points inside our network, one does not exist, one points at
    // an allowed address where nothing listens (port 1).
    const answers: Record<string, string> = { 'intranet.example': '10.1.2.3', 'closed.example': '127.0.0.1' };
    const lookup = ((
      host: string,
      _options: unknown,
      callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
    ) => {
      const address = answers[host];
      if (address) callback(null, [{ address, family: 4 }]);
      else callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
    }) as unknown as typeof import('node:dns').lookup;
    const original = deps.pageFetch.lookup;
    deps.pageFetch.lookup = lookup;
    t.after(async () => {
      deps.pageFetch.lookup = original;
    });
    const answered: Array<{ code: string; message: string; param: string }> = [];
    for (const [index, url] of ['http://intranet.example/', 'http://nowhere.example/', 'http://closed.example:1/'].entries()) {
      const response = await audit(url, `198.51.100.${60 + index}`);
      assert.equal(response.statusCode, 502, response.body);
      assert.doesNotMatch(response.body, /10\.1\.2\.3|127\.0\.0\.1|ENOTFOUND|ECONNREFUSED|resolve|private|intranet|nowhere|closed/i, url);
      const { code, message, param } = response.json().error;
      answered.push({ code, message, param });
    }
    // One answer for all three: which of them exists, and where, stays unknown.
    assert.deepEqual(answered[1], answered[0]);
    assert.deepEqual(answered[2], answered[0]);
    assert.equal(answered[0]?.code, 'upstream_failed');
    assert.equal(answered[0]?.param, 'url');
  });

  test('the limit is per client address (the last X-Forwarded-For entry), with Retry-After', async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      // A client-supplied first entry changes nothing: the gateway's entry (the last) is the subject.
      assert.equal((await audit(siteUrl, `10.9.9.${attempt}, 203.0.113.50`)).statusCode, 200);
    }
    const refused = await audit(siteUrl, '10.9.9.99, 203.0.113.50');
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json().error.code, 'rate_limited');
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.equal(refused.headers['x-ratelimit-remaining'], '0');
    assert.equal((await audit(siteUrl, '203.0.113.51')).statusCode, 200);
  });

  test('the API-key form answers 501 coming_soon, and needs the gateway identity', async () => {
    const identity = testIdentity({ scope: 'read' });
    const url = '/api/v1/marketing-audit';
    const response = await app.inject({ method: 'POST', url, headers: gatewayHeaders(identity, 'POST', url), payload: { url: siteUrl } });
    assert.equal(response.statusCode, 501);
    assert.equal(response.json().error.code, 'coming_soon');
    const unsigned = await app.inject({ method: 'POST', url, payload: { url: siteUrl } });
    assert.equal(unsigned.statusCode, 401);
  });

  test('both audit routes and the recall routes are in the OpenAPI document with their scopes', async () => {
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const path of [
      '/api/public/marketing-audit',
      '/api/v1/marketing-audit',
      '/api/v1/llm-recall',
      '/api/v1/knowledge/documents',
      '/api/v1/knowledge/documents/{id}',
    ]) {
      assert.ok(document.paths[path], `missing ${path}`);
    }
    assert.ok(document.paths['/api/public/marketing-audit'].post.requestBody);
    assert.ok(document.paths['/api/v1/llm-recall'].post.requestBody);
  });
});

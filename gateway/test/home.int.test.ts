// What someone who opens the gateway's address sees (a browser: a small page; an API client: the usual 404
// envelope), and where the gateway's metrics are (not on its public port: on a port of their own).
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { metricsRegistryOf, startMetricsServer } from '@voice/kit';
import { createTestContext, type TestContext } from '@voice/kit/testing';
import { chromium } from 'playwright-core';
import { authorizationServerMetadata } from '../../services/console/src/routes/oauth.js';
import { blockingViolations, describeViolations } from '../../services/console/test/support/axe.js';
import { chromiumArgs, chromiumPath } from '../../services/console/test/support/browser.js';
import { acceptsHtml } from '../src/routes/home.js';
import { startGateway, type TestGateway } from './support/harness.js';

/** What Chromium and Firefox send for a page they navigate to. */
const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

describe('GET / and /metrics on the gateway', () => {
  let ctx: TestContext;
  let gateway: TestGateway;
  let url: string;

  before(async () => {
    ctx = await createTestContext();
    gateway = await startGateway(ctx, { PUBLIC_BASE_URL: 'https://api.example.com' });
    await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(gateway.app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    gateway.app.server.closeAllConnections();
    await gateway?.close();
    await ctx?.cleanup();
  });

  test('a browser gets a page linking the OpenAPI document, the MCP configuration and the dashboard', async () => {
    const response = await fetch(`${url}/`, { headers: { accept: browserAccept } });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(response.headers.get('vary') ?? '', /accept/i);
    assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    const page = await response.text();
    assert.match(page, /<html lang="en">/);
    for (const href of ['/api/v1/openapi.json', '#mcp', '/dashboard']) assert.ok(page.includes(`href="${href}"`), href);
    // The configuration names this deployment's public MCP address, as a client must write it.
    assert.ok(page.includes('&#34;type&#34;: &#34;http&#34;'), 'the configuration says type http');
    assert.ok(page.includes('https://api.example.com/api/mcp'), 'the public MCP URL');
  });

  test("the authorization server's service_documentation is this page's MCP section, 200 in a browser", async () => {
    const documentation = new URL(authorizationServerMetadata(url).service_documentation);
    assert.equal(documentation.origin, url);
    const response = await fetch(documentation, { headers: { accept: browserAccept } });
    assert.equal(response.status, 200);
    assert.ok((await response.text()).includes(`id="${documentation.hash.slice(1)}"`), documentation.hash);
  });

  test('an API client (JSON, a wildcard, or no Accept) gets the usual 404 envelope', async () => {
    for (const accept of ['application/json', '*/*', undefined, 'text/html;q=0']) {
      const response = await fetch(`${url}/`, accept === undefined ? {} : { headers: { accept } });
      assert.equal(response.status, 404, String(accept));
      const body = (await response.json()) as { error: { code: string; message: string; request_id: string } };
      assert.equal(body.error.code, 'not_found');
      assert.equal(body.error.message, 'No route GET /.');
      assert.equal(body.error.request_id, response.headers.get('request-id'));
    }
  });

  test('Accept negotiation: text/html or text/* with a quality above zero is a browser', () => {
    assert.equal(acceptsHtml(browserAccept), true);
    assert.equal(acceptsHtml('text/*'), true);
    assert.equal(acceptsHtml('application/json, text/html;q=0.1'), true);
    assert.equal(acceptsHtml('text/html; q=0'), false);
    assert.equal(acceptsHtml('*/*'), false);
    assert.equal(acceptsHtml(undefined), false);
  });

  test('the page passes axe in Chromium (no serious or critical violation)', async () => {
    const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
    try {
      // axe is injected as a script, which the page's policy rightly refuses; this context alone bypasses it.
      const context = await browser.newContext({ bypassCSP: true });
      const page = await context.newPage();
      const response = await page.goto(`${url}/`);
      assert.equal(response?.status(), 200);
      assert.equal(await page.title(), 'Voice platform API');
      const violations = await blockingViolations(page);
      assert.deepEqual(violations, [], describeViolations(violations));
    } finally {
      await browser.close();
    }
  });

  test('/metrics is not on the public port; the metrics port serves it', async () => {
    const onPublic = await fetch(`${url}/metrics`);
    assert.equal(onPublic.status, 404);
    assert.equal(((await onPublic.json()) as { error: { code: string } }).error.code, 'not_found');
    // runService serves this registry on METRICS_PORT; the same server, on a port the system picks.
    const metrics = await startMetricsServer(metricsRegistryOf(gateway.app), '127.0.0.1', 0);
    try {
      const response = await fetch(metrics.url);
      assert.equal(response.status, 200);
      const text = await response.text();
      assert.match(text, /^# HELP http_request_duration_seconds /m);
      assert.match(text, /^# HELP gateway_audit_/m, "the gateway's own metrics are there too");
      assert.equal((await fetch(new URL('/', metrics.url))).status, 404);
    } finally {
      await metrics.close();
    }
  });
});

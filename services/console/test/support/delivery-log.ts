// A webhook endpoint that takes every event, and its delivery log read back the ways a customer reads it: the
// API through the gateway (every page, every delivery) and the console's endpoint page.
import assert from 'node:assert/strict';
import { bearer, type Platform } from '@voice/gateway/testing';
import type { WebhookDelivery, WebhookEndpointWithSecret } from '@voice/proto';
import type { Browser } from './harness.js';

type WebhooksPlatform = Platform<'webhooks' | 'console'>;

/** An endpoint subscribed to `*`, made through the API with the organization's key. */
export async function allEventsEndpoint(platform: WebhooksPlatform, key: string, url: string): Promise<WebhookEndpointWithSecret> {
  const response = await platform.gateway.app.inject({
    method: 'POST',
    url: '/api/v1/webhooks',
    headers: bearer(key),
    payload: { url, event_types: ['*'] },
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json() as WebhookEndpointWithSecret;
}

/**
 * The endpoint's whole delivery log through the API, each delivery also read on its own: every answer must
 * be 200, and every event id in the published shape.
 */
export async function deliveryLogThroughApi(platform: WebhooksPlatform, key: string, endpointId: string): Promise<WebhookDelivery[]> {
  const deliveries: WebhookDelivery[] = [];
  let cursor: string | null = null;
  do {
    const response: { statusCode: number; body: string; json(): unknown } = await platform.gateway.app.inject({
      method: 'GET',
      url: `/api/v1/webhooks/${endpointId}/deliveries?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      headers: bearer(key),
    });
    assert.equal(response.statusCode, 200, response.body);
    const page = response.json() as { data: WebhookDelivery[]; has_more: boolean; next_cursor: string | null };
    deliveries.push(...page.data);
    cursor = page.has_more ? page.next_cursor : null;
  } while (cursor);
  for (const delivery of deliveries) {
    assert.match(delivery.event_id, /^evt_[0-9A-Za-z]{8,40}$/);
    const one = await platform.gateway.app.inject({
      method: 'GET',
      url: `/api/v1/webhooks/${endpointId}/deliveries/${delivery.id}`,
      headers: bearer(key),
    });
    assert.equal(one.statusCode, 200, one.body);
    assert.equal((one.json() as { event: { id: string } }).event.id, delivery.event_id);
  }
  return deliveries;
}

/** The console's page of the endpoint, with its delivery log, as a signed-in person sees it. */
export async function deliveryLogInConsole(browser: Browser, endpointId: string): Promise<string> {
  const page = await browser.get(`/dashboard/webhooks/${endpointId}`);
  assert.equal(page.statusCode, 200, page.body);
  return page.body;
}

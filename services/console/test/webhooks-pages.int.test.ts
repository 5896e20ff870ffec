import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, type Platform, startPlatform } from '@voice/gateway/testing';
import { eventually, type Receiver, startReceiver } from '@voice/kit/testing';
import { type WebhookEndpointWithSecret, webhooksPlanMessage } from '@voice/proto';
import { Browser, invitePerson } from './support/harness.js';

const secretPattern = /whsec_[A-Za-z0-9+/]{32,88}={0,2}/g;
const page = '/dashboard/webhooks';

describe('the webhooks pages, through the gateway', () => {
  let platform: Platform<'webhooks' | 'console'>;
  let receiver: Receiver;

  before(async () => {
    receiver = await startReceiver(() => 200);
    platform = await startPlatform({ services: ['webhooks', 'console'] });
  });
  after(async () => {
    await platform.close();
    await receiver.close();
  });

  async function signedIn(orgId: string, role: 'owner' | 'admin' | 'member') {
    const person = await invitePerson(platform.console.deps, orgId, role);
    const browser = new Browser(platform.gateway.app, '198.51.100.8');
    const response = await browser.signIn(person.email, person.password);
    assert.equal(response.statusCode, 303, response.body);
    return browser;
  }

  const endpointsOf = (orgId: string) =>
    platform.webhooks.deps.prisma.endpoint.findMany({
      where: { orgId },
      orderBy: { createdAt: 'asc' },
      select: { id: true, url: true, description: true, eventTypes: true, status: true, secret: true },
    });
  /** An endpoint made through the API with the organization's key, as a customer's code would. */
  async function apiEndpoint(key: string) {
    const response = await platform.gateway.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: bearer(key),
      payload: { url: receiver.url, event_types: ['*'] },
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json() as WebhookEndpointWithSecret;
  }
  /** Every change the pages offer for one endpoint, as hand-made form posts. */
  const endpointChanges = (base: string): Array<readonly [string, Record<string, string>]> => [
    [base, { url: `${receiver.url}/changed`, 'event_type.*': 'on' }],
    [`${base}/status`, { status: 'disabled' }],
    [`${base}/test`, {}],
    [`${base}/rotate-secret`, {}],
    [`${base}/reveal-secret`, {}],
    [`${base}/deliveries/dlv_0123456789abcdefghij/replay`, {}],
    [`${base}/delete`, {}],
  ];
  const secretsIn = (body: string) => body.match(secretPattern) ?? [];

  test('an owner adds an endpoint (secret shown once), edits, disables and enables it, sends a test, replays it, rotates and reveals the secret, and deletes it', async () => {
    const { orgId } = await platform.org({ plan: 'pro' });
    const browser = await signedIn(orgId, 'owner');
    const list = await browser.get(page);
    assert.equal(list.statusCode, 200);
    assert.match(list.body, /<a href="\/dashboard\/webhooks" aria-current="page">Webhooks<\/a>/);
    assert.match(list.body, /No endpoints yet/);
    for (const id of ['webhook-url', 'webhook-description', 'webhook-event-all', 'webhook-event-call-completed']) {
      assert.match(list.body, new RegExp(`id="${id}"`));
    }

    const created = await browser.post(page, { url: receiver.url, description: 'CRM', 'event_type.*': 'on' });
    assert.equal(created.statusCode, 201, created.body);
    assert.match(created.headers['cache-control'] as string, /no-store/);
    const [secret] = secretsIn(created.body);
    assert.ok(secret, 'the new secret is shown');
    assert.match(created.body, /shown only on this page/);
    const [stored] = await endpointsOf(orgId);
    assert.ok(stored);
    const endpointPage = `${page}/${stored.id}`;

    const listed = await browser.get(page);
    assert.match(listed.body, new RegExp(`href="${endpointPage}"`));
    assert.match(listed.body, /all events/);
    assert.deepEqual(secretsIn(listed.body), [], 'the list never shows a secret');
    const detail = await browser.get(endpointPage);
    assert.equal(detail.statusCode, 200);
    assert.deepEqual(secretsIn(detail.body), [], 'nor does the endpoint page');
    assert.match(detail.body, /No deliveries yet/);

    const edited = await browser.post(endpointPage, {
      url: `${receiver.url}/edited`,
      description: '',
      'event_type.call.completed': 'on',
      'event_type.lead.created': 'on',
    });
    assert.equal(edited.statusCode, 303, edited.body);
    assert.equal(edited.headers.location, endpointPage);
    const [changed] = await endpointsOf(orgId);
    assert.deepEqual(
      [changed?.url, changed?.description, changed?.eventTypes],
      [`${receiver.url}/edited`, null, ['call.completed', 'lead.created']],
    );
    const refused = await browser.post(endpointPage, { url: 'ftp://example.com/x', 'event_type.*': 'on' });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /role="alert">url: Invalid URL/);

    assert.equal((await browser.post(`${endpointPage}/status`, { status: 'disabled' })).statusCode, 303);
    const disabled = await browser.get(endpointPage);
    assert.match(disabled.body, /id="webhook-status">disabled by a person/);
    assert.doesNotMatch(disabled.body, /id="webhook-test"/);
    assert.match(disabled.body, /id="webhook-enable"/);
    assert.equal((await browser.post(`${endpointPage}/status`, { status: 'enabled' })).statusCode, 303);
    assert.match((await browser.get(endpointPage)).body, /id="webhook-status">enabled</);

    assert.equal((await browser.post(`${endpointPage}/test`, {})).statusCode, 303);
    await eventually('the test event reaches the receiver', () => receiver.requests.some((request) => request.url.endsWith('/edited')));
    const logged = await eventually('the delivery log shows it succeeded', async () => {
      const body = (await browser.get(endpointPage)).body;
      return /<td>webhook\.test<\/td>\s*<td>succeeded<\/td>/.test(body) ? body : undefined;
    });
    assert.match(logged, /HTTP 200/);
    const deliveryId = /Replay delivery (dlv_[0-9A-Za-z]+)/.exec(logged)?.[1] as string;
    assert.ok(deliveryId, 'a replay button for the delivery');

    const received = receiver.requests.length;
    assert.equal((await browser.post(`${endpointPage}/deliveries/${deliveryId}/replay`, {})).statusCode, 303);
    await eventually('the replay reaches the receiver', () => receiver.requests.length > received);
    assert.match((await browser.get(endpointPage)).body, new RegExp(`replays <code>${deliveryId}</code>`));

    const rotated = await browser.post(`${endpointPage}/rotate-secret`, {});
    assert.equal(rotated.statusCode, 201, rotated.body);
    const [newSecret] = secretsIn(rotated.body);
    assert.ok(newSecret && newSecret !== secret, 'a new secret, shown once');
    const revealed = await browser.post(`${endpointPage}/reveal-secret`, {});
    assert.equal(revealed.statusCode, 200, revealed.body);
    assert.match(revealed.headers['cache-control'] as string, /no-store/);
    assert.deepEqual(secretsIn(revealed.body), [newSecret]);
    assert.deepEqual(secretsIn((await browser.get(endpointPage)).body), []);

    const confirm = await browser.get(`${endpointPage}/delete`);
    assert.equal(confirm.statusCode, 200);
    assert.match(confirm.body, /id="webhook-delete-confirm"/);
    const deleted = await browser.post(`${endpointPage}/delete`, {});
    assert.equal(deleted.statusCode, 303);
    assert.equal(deleted.headers.location, page);
    assert.deepEqual(await endpointsOf(orgId), []);
    assert.equal((await browser.get(endpointPage)).statusCode, 404);
  });

  test('a member sees the endpoints and their log but no buttons, and every hand-made POST is refused with nothing changed', async () => {
    const { orgId, key } = await platform.org({ plan: 'pro' });
    const endpoint = await apiEndpoint(key);
    const browser = await signedIn(orgId, 'member');
    const list = await browser.get(page);
    assert.equal(list.statusCode, 200);
    assert.match(list.body, new RegExp(`href="${page}/${endpoint.id}"`));
    assert.doesNotMatch(list.body, /id="webhook-url"/);
    const detail = await browser.get(`${page}/${endpoint.id}`);
    assert.equal(detail.statusCode, 200);
    assert.match(detail.body, /Delivery log/);
    assert.doesNotMatch(detail.body, /id="webhook-(disable|enable|test|reveal|rotate|save|delete)"|Replay/);
    assert.equal((await browser.get(`${page}/${endpoint.id}/delete`)).statusCode, 403);

    const before = await endpointsOf(orgId);
    const base = `${page}/${endpoint.id}`;
    for (const [url, fields] of [[page, { url: receiver.url, 'event_type.*': 'on' }] as const, ...endpointChanges(base)]) {
      const response = await browser.post(url, fields);
      assert.equal(response.statusCode, 403, url);
      assert.deepEqual(secretsIn(response.body), [], url);
    }
    assert.deepEqual(await endpointsOf(orgId), before);
  });

  test("another organization's endpoint is 404 for every page and action, and never listed", async () => {
    const victim = await platform.org({ plan: 'pro' });
    const endpoint = await apiEndpoint(victim.key);
    const { orgId } = await platform.org({ plan: 'pro' });
    const browser = await signedIn(orgId, 'admin');
    assert.doesNotMatch((await browser.get(page)).body, new RegExp(endpoint.id));
    const base = `${page}/${endpoint.id}`;
    assert.equal((await browser.get(base)).statusCode, 404);
    assert.equal((await browser.get(`${base}/delete`)).statusCode, 404);
    const before = await endpointsOf(victim.orgId);
    for (const [url, fields] of endpointChanges(base)) {
      const response = await browser.post(url, fields);
      assert.equal(response.statusCode, 404, url);
      assert.deepEqual(secretsIn(response.body), [], url);
    }
    assert.deepEqual(await endpointsOf(victim.orgId), before);
  });

  test('Lite: the reason is shown instead of the form, and a hand-made POST gets the same refusal', async () => {
    const org = (await platform.gateway.admin({ kind: 'org.create', name: 'Small', plan: 'lite' })) as { id: string };
    const browser = await signedIn(org.id, 'owner');
    const list = await browser.get(page);
    assert.equal(list.statusCode, 200);
    assert.ok(list.body.includes(`id="webhooks-plan">${webhooksPlanMessage.replace(/'/g, '&#39;')}`), list.body);
    assert.doesNotMatch(list.body, /id="webhook-url"/);
    const refused = await browser.post(page, { url: receiver.url, 'event_type.*': 'on' });
    assert.equal(refused.statusCode, 403);
    assert.match(refused.body, /role="alert">Webhooks need the Starter, Pro or Enterprise plan/);
    assert.deepEqual(await endpointsOf(org.id), []);
  });
});

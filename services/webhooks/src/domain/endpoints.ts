import { ApiError } from '@voice/kit';
import type { CreateWebhookBody, Identity, UpdateWebhookBody, WebhookDelivery, WebhookEndpoint } from '@voice/proto';
import { enqueueDeliveries } from '../delivery/queue.js';
import type { WebhooksDeps } from '../deps.js';
import { createReplay, createTestDelivery } from '../store/deliveries.js';
import { createEndpoint, deleteEndpoint, getEndpointRow, rotateSecret, updateEndpoint } from '../store/endpoints.js';
import { endpointUrlRefusal } from './endpoint-url.js';
import { assertWebhooksPlan } from './plan.js';
import { toDelivery, toEndpoint } from './records.js';
import { maxAttempts } from './retry-schedule.js';

/** An endpoint as its creation and a secret rotation answer: the signing secret, shown this once. */
export type EndpointWithSecret = WebhookEndpoint & { secret: string };

function assertUrl(deps: WebhooksDeps, url: string): void {
  const refusal = endpointUrlRefusal(url, deps.urlPolicy, deps.env.NODE_ENV === 'production');
  if (refusal !== null) throw refusal;
}

/**
 * Creates an endpoint; the answer carries its signing secret, shown this once. Idempotent by its definition
 * (`webhooks.create`), remembered by the id alone (`createdEndpoint`): a replay answers with the endpoint as
 * it is now, its secret opened from Postgres, so the secret is never in clear in Redis.
 */
export async function addEndpoint(deps: WebhooksDeps, identity: Identity, body: CreateWebhookBody): Promise<EndpointWithSecret> {
  assertWebhooksPlan(identity);
  assertUrl(deps, body.url);
  const { row, secret } = await createEndpoint(deps.prisma, identity.org_id, body, deps.secretBox);
  return { ...toEndpoint(row), secret };
}

/** What an idempotency key keeps of a created endpoint, and the answer again from it: the endpoint with its secret. */
export function createdEndpoint(deps: WebhooksDeps) {
  return {
    keep: (endpoint: EndpointWithSecret): KeptEndpoint => ({ endpoint_id: endpoint.id }),
    replay: async (kept: KeptEndpoint, identity: Identity): Promise<EndpointWithSecret> => {
      const row = await getEndpointRow(deps.prisma, identity.org_id, kept.endpoint_id);
      return { ...toEndpoint(row), secret: deps.secretBox.open(row.secret, row.id) };
    },
  };
}

/** Only the endpoint's id, as the key has kept it from the start. */
interface KeptEndpoint {
  endpoint_id: string;
}

export async function changeEndpoint(
  deps: WebhooksDeps,
  identity: Identity,
  id: string,
  body: UpdateWebhookBody,
): Promise<WebhookEndpoint> {
  assertWebhooksPlan(identity);
  if (body.url !== undefined) assertUrl(deps, body.url);
  return toEndpoint(await updateEndpoint(deps.prisma, identity.org_id, id, body));
}

/** Deletes an endpoint and its delivery log, answering with the deleted-record shape REST and NATS share. */
export async function removeEndpoint(deps: WebhooksDeps, identity: Identity, id: string) {
  assertWebhooksPlan(identity);
  await deleteEndpoint(deps.prisma, identity.org_id, id);
  return { id, object: 'webhook_endpoint' as const, deleted: true as const };
}

/** A new signing secret; the old one keeps signing alongside it for WEBHOOK_SECRET_ROTATION_GRACE_MS. */
export async function rotateEndpointSecret(deps: WebhooksDeps, identity: Identity, id: string): Promise<EndpointWithSecret> {
  assertWebhooksPlan(identity);
  const { row, secret } = await rotateSecret(deps.prisma, identity.org_id, id, deps.env.WEBHOOK_SECRET_ROTATION_GRACE_MS, deps.secretBox);
  return { ...toEndpoint(row), secret };
}

/**
 * The endpoint's current signing secret, for a person signed in to the console (an owner or admin, whose
 * identity carries `user_id`); an API key sees a secret only at creation and rotation.
 */
export async function revealEndpointSecret(deps: WebhooksDeps, identity: Identity, id: string): Promise<EndpointWithSecret> {
  if (!identity.user_id) throw new ApiError('forbidden', 'Only a person signed in to the console can reveal a signing secret.');
  assertWebhooksPlan(identity);
  const row = await getEndpointRow(deps.prisma, identity.org_id, id);
  return { ...toEndpoint(row), secret: deps.secretBox.open(row.secret, row.id) };
}

/** A new delivery to one enabled endpoint, queued at once, with its own retries: a test event or a replay. */
async function deliverNow(
  deps: WebhooksDeps,
  identity: Identity,
  id: string,
  create: (endpointId: string) => ReturnType<typeof createTestDelivery>,
): Promise<WebhookDelivery> {
  assertWebhooksPlan(identity);
  const endpoint = await getEndpointRow(deps.prisma, identity.org_id, id);
  if (endpoint.status !== 'enabled') throw new ApiError('conflict', 'The endpoint is disabled; enable it first.', { param: 'id' });
  const delivery = await create(endpoint.id);
  await enqueueDeliveries(deps.queue, identity.org_id, [delivery.id], maxAttempts(deps.env.WEBHOOK_RETRY_SCHEDULE_MS) * 2);
  return toDelivery(delivery);
}

/** Queues a `webhook.test` delivery to this endpoint only (stored with its event, never crossing NATS). */
export function sendTestEvent(deps: WebhooksDeps, identity: Identity, id: string): Promise<WebhookDelivery> {
  return deliverNow(deps, identity, id, (endpointId) => createTestDelivery(deps.prisma, identity.org_id, endpointId));
}

/** Sends a delivery's event again, as a new delivery (same `webhook-id`). */
export function replayDelivery(deps: WebhooksDeps, identity: Identity, id: string, deliveryId: string): Promise<WebhookDelivery> {
  return deliverNow(deps, identity, id, (endpointId) => createReplay(deps.prisma, identity.org_id, endpointId, deliveryId));
}

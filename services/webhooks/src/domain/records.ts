import { isoOrNull } from '@voice/kit';
import type { EventType, WebhookDelivery, WebhookEndpoint } from '@voice/proto';
import type { Delivery as DeliveryRow, Endpoint as EndpointRow } from '../generated/prisma/client.js';
import type { SecretBox } from './secret-box.js';

/** A stored endpoint as the public record: never its secrets. */
export function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    object: 'webhook_endpoint',
    url: row.url,
    description: row.description,
    event_types: row.eventTypes,
    status: row.status,
    disabled_reason: row.disabledReason,
    failing_since: isoOrNull(row.failingSince),
    secret_rotated_at: isoOrNull(row.secretRotatedAt),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    object: 'webhook_delivery',
    endpoint_id: row.endpointId,
    event_id: row.eventId,
    // Stored from a validated envelope, so it is one of the catalogue's types.
    event_type: row.eventType as EventType,
    status: row.status,
    attempt_count: row.attemptCount,
    last_attempt_at: isoOrNull(row.lastAttemptAt),
    next_attempt_at: isoOrNull(row.nextAttemptAt),
    response_status: row.responseStatus,
    response_excerpt: row.responseExcerpt,
    last_error: row.lastError,
    replay_of: row.replayOf,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The secrets a delivery is signed with now: the current one, plus the previous one during its grace period. */
export function signingSecrets(
  endpoint: Pick<EndpointRow, 'id' | 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>,
  now: Date,
  box: SecretBox,
): string[] {
  const secrets = [box.open(endpoint.secret, endpoint.id)];
  if (endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now) {
    secrets.push(box.open(endpoint.previousSecret, endpoint.id));
  }
  return secrets;
}

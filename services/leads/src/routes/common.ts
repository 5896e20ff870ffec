import { identityOf, parseIdempotencyKey } from '@voice/kit';
import type { Identity } from '@voice/proto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { LeadsDeps } from '../deps.js';
import { onceFor } from '../domain/idempotency.js';

/**
 * Runs a create (201) or a send (200) once per `Idempotency-Key`: the same key and request return the first
 * response again, marked with `Idempotent-Replayed: true`; the same key with another request is 409.
 */
export async function once<T>(
  deps: LeadsDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  operation: string,
  work: (identity: Identity) => Promise<T>,
  status = 201,
): Promise<T> {
  const identity = identityOf(request);
  const key = parseIdempotencyKey(request.headers['idempotency-key']);
  const result = await onceFor(
    deps,
    identity.org_id,
    operation,
    key,
    { url: request.url, body: request.body ?? null },
    () => work(identity),
    status,
  );
  void reply.status(result.status);
  if (result.replayed) void reply.header('idempotent-replayed', 'true');
  return result.body;
}

export const idempotencyHeaders = z.object({
  'idempotency-key': z.string().optional().describe('Makes the request safe to retry: the same key and body run once'),
});

export function deletedResponse(object: string) {
  return z.object({ id: z.string(), object: z.literal(object), deleted: z.literal(true) });
}

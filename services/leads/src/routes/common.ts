import { idempotencyKeyOf, identityOf, runIdempotent, sendIdempotent } from '@voice/kit';
import type { Identity } from '@voice/proto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { LeadsDeps } from '../deps.js';

/**
 * Runs a create (201) or a send (200) once per `Idempotency-Key`, under the operation's one name (its NATS
 * handler uses the same): the same key with the same path parameters and body returns the first response
 * again; with others it is 409.
 */
export async function once<T>(
  deps: LeadsDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  operation: string,
  work: (identity: Identity) => Promise<T>,
  status = 201,
): Promise<FastifyReply> {
  const identity = identityOf(request);
  const input = { ...(request.params as object), ...(request.body as object | undefined), idempotency_key: idempotencyKeyOf(request) };
  return sendIdempotent(reply, await runIdempotent(deps, identity.org_id, operation, input, () => work(identity), status));
}

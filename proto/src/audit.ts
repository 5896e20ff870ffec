import { z } from 'zod';
import { auditRecordSchema } from './gateway.js';

/**
 * The `api.called` contract: what the gateway publishes after each authenticated API call and its audit
 * writer stores. One API call as the gateway records it (never the key, never bodies): the audit record
 * it becomes (its actor is always a key), with the time of the call in `at`.
 */
export const apiCallSchema = auditRecordSchema
  .omit({ object: true, actor_type: true, reason: true, created_at: true })
  .extend({ at: z.string() });
export type ApiCall = z.infer<typeof apiCallSchema>;

/** The data of an `api.called` event: a batch of one organization's calls. */
export const apiCallBatchSchema = z.object({ calls: z.array(apiCallSchema) });

import { z } from 'zod';

/**
 * The `api.called` contract: what the gateway publishes after each authenticated API call and its audit
 * writer stores. One API call as the gateway records it (never the key, never bodies); `id` is the audit
 * record's id.
 */
export const apiCallSchema = z.object({
  id: z.string(),
  key_id: z.string(),
  method: z.string(),
  path: z.string(),
  status: z.number().int(),
  latency_ms: z.number().int(),
  request_id: z.string(),
  client_address: z.string().nullable(),
  at: z.string(),
});
export type ApiCall = z.infer<typeof apiCallSchema>;

/** The data of an `api.called` event: a batch of one organization's calls. */
export const apiCallBatchSchema = z.object({ calls: z.array(apiCallSchema) });

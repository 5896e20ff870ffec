import { baseEnvSchema, portSchema, workersSchema } from '@voice/kit';
import { z } from 'zod';

export const envSchema = baseEnvSchema.extend({
  PORT: portSchema(8082),
  /**
   * Multiplies every sequence step's delay. 1 in production (a step of 86400 seconds waits a day); a
   * demo or staging stack may set 0.01 to watch a sequence run in minutes.
   */
  SEQUENCE_DELAY_SCALE: z.coerce.number().min(0).max(1).default(1),
  /** Sequence steps run at the same time per process. */
  SEQUENCE_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(8),
  /** How often active enrollments whose next step has no job get one again (see sequences/sweeper.ts). */
  SEQUENCE_SWEEP_INTERVAL_MS: z.coerce.number().int().positive().default(60_000),
  /**
   * Background work this process runs: `all`, `none` (an API-only replica) or a list of `sequences` (the
   * step worker and the sweeper), `call-outcomes` (the `call.completed` consumer) and `outbox` (publishes
   * the events of changes).
   */
  WORKERS: workersSchema(['sequences', 'call-outcomes', 'outbox']),
  /** How long a sequence step waits for telephony to queue a call or send an SMS before retrying. */
  TELEPHONY_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
});

export type LeadsEnv = z.infer<typeof envSchema>;

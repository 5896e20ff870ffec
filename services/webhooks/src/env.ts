import { baseEnvSchema, developmentSecret, portSchema, workersSchema } from '@voice/kit';
import { z } from 'zod';
import { parseRetrySchedule, productionRetryScheduleMs } from './domain/retry-schedule.js';

const hour = 3_600_000;

export const envSchema = baseEnvSchema.extend({
  PORT: portSchema(8085),
  /**
   * 32 bytes, base64: the AES-256-GCM key endpoint secrets are sealed with in the database. The default is
   * for development and test only; production refuses to start without a key of its own.
   */
  WEBHOOK_SECRET_ENCRYPTION_KEY: developmentSecret(
    z.string().refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes, base64-encoded (openssl rand -base64 32)'),
    Buffer.from('dev-only-webhook-secrets-key-000').toString('base64'),
  ),
  /** Lets endpoints point at private, loopback and link-local addresses: for local receivers in tests only. */
  WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: z.stringbool().default(false),
  /** Refuse `http:` endpoint URLs; when unset, required exactly when NODE_ENV is production. */
  WEBHOOKS_REQUIRE_HTTPS: z.stringbool().optional(),
  /** Waits between attempts, comma-separated milliseconds; the first attempt is immediate. */
  WEBHOOK_RETRY_SCHEDULE_MS: z
    .string()
    .default(productionRetryScheduleMs.join(','))
    .transform((text, context) => {
      try {
        return parseRetrySchedule(text);
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
  /** An attempt that has not answered within this is a failure. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
  /** An endpoint whose every attempt failed for this long is disabled. */
  WEBHOOK_DISABLE_AFTER_FAILING_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(5 * 24 * hour),
  /** After a rotation the old secret keeps signing (a second signature) for this long. */
  WEBHOOK_SECRET_ROTATION_GRACE_MS: z.coerce
    .number()
    .int()
    .nonnegative()
    .default(24 * hour),
  /**
   * Background work this process runs: `all`, `none` (an API-only replica) or a list of `deliveries` (the
   * worker that attempts them), `maintenance` (lost jobs, log trimming), `fanout` (events into deliveries)
   * and `plan-changes` (endpoints follow the organization's plan).
   */
  WORKERS: workersSchema(['deliveries', 'maintenance', 'fanout', 'plan-changes']),
  /** Deliveries in flight at once in one process. */
  WEBHOOK_DELIVERY_CONCURRENCY: z.coerce.number().int().positive().default(50),
  /**
   * How long a worker's claim on a delivery lasts without renewal; a delivery held by a worker that died is
   * picked up again after about this long.
   */
  WEBHOOK_WORKER_LOCK_MS: z.coerce.number().int().positive().default(30_000),
  /**
   * Events fanned out at once in one process; 1 keeps the stream's order. The events in flight together share
   * one statement and one call to Redis (nats/fanout.ts), so 8 capped those batches at 8: 64 gave 1.6–2× the
   * deliveries per second in the bench (README, "Third look").
   */
  WEBHOOK_FANOUT_CONCURRENCY: z.coerce.number().int().positive().default(64),
  /** How long fan-out may take for one event before JetStream hands it to another replica. */
  WEBHOOK_FANOUT_ACK_WAIT_MS: z.coerce.number().int().positive().default(30_000),
  /** How often pending deliveries are checked for a lost job and the log is trimmed. */
  WEBHOOK_MAINTENANCE_INTERVAL_MS: z.coerce.number().int().positive().default(60_000),
  /** Finished deliveries (and events no longer referenced) are deleted after this many days. */
  WEBHOOK_LOG_RETENTION_DAYS: z.coerce.number().int().positive().default(30),
});

export type WebhooksEnv = z.infer<typeof envSchema>;

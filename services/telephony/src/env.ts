import { baseEnvSchema, portSchema, publicAddress, workersSchema } from '@voice/kit';
import { e164Schema } from '@voice/proto';
import { z } from 'zod';

export const envSchema = baseEnvSchema
  .extend({
    PORT: portSchema(8081),
    /**
     * Which carrier places live organizations' calls and sends their messages: `sandbox` (a simulation, the
     * default) or `twilio`. Test twins' always go to the sandbox, whatever this says (carrier/choice.ts).
     */
    TELEPHONY_CARRIER: z.enum(['sandbox', 'twilio']).default('sandbox'),
    /** Caller id and sender when a request names no `from`: the platform's own number. */
    TELEPHONY_DEFAULT_FROM: e164Schema.default('+15005550006'),
    /**
     * Which organization owns which of the platform's numbers, for inbound calls and messages:
     * `+15005550006=org_…,+14155550000=org_…`. Numbers not listed route by conversation (the organization
     * that last contacted the caller from that number).
     */
    TELEPHONY_NUMBER_ORGS: z
      .string()
      .default('')
      .transform((value, context) => {
        const map = new Map<string, string>();
        for (const pair of value
          .split(',')
          .map((part) => part.trim())
          .filter(Boolean)) {
          const match = /^(\+[1-9][0-9]{6,14})=(org_[0-9A-Za-z]{8,40})$/.exec(pair);
          if (!match?.[1] || !match[2]) {
            context.addIssue({ code: 'custom', message: `"${pair}" is not +E164=org_id` });
            return z.NEVER;
          }
          map.set(match[1], match[2]);
        }
        return map;
      }),
    /**
     * The public address carriers reach this service at (through the gateway), e.g. https://api.example.com.
     * Callback URLs are built from it, and Twilio signs the exact URL it requested. Unset: the gateway's
     * default address (`npm start` passes the gateway's own, whatever its PORT).
     */
    PUBLIC_BASE_URL: z.url().default(publicAddress(undefined)),
    TWILIO_ACCOUNT_SID: z
      .string()
      .regex(/^AC[0-9a-fA-F]{32}$/, 'must be a Twilio account SID (AC…)')
      .optional(),
    TWILIO_AUTH_TOKEN: z.string().min(16).optional(),
    /** Twilio's REST API root; a local fake in tests. */
    TWILIO_API_BASE_URL: z.url().default('https://api.twilio.com'),
    /** Where Twilio fetches a connected call's instructions (TwiML): the voice agent. */
    TWILIO_VOICE_URL: z.url().optional(),
    TWILIO_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
    /**
     * Background work this process runs: `all`, `none` (an API-only replica) or a list of `dialer` (call, SMS
     * and sandbox workers, the lost-job and stuck-call sweep) and `outbox` (publishes the events of changes).
     */
    WORKERS: workersSchema(['dialer', 'outbox']),
    DIAL_CONCURRENCY: z.coerce.number().int().positive().default(10),
    /** Attempts per call or message on carrier errors, with exponential back-off from DIAL_BACKOFF_MS. */
    DIAL_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
    DIAL_BACKOFF_MS: z.coerce.number().int().min(1).default(2_000),
    /** How often queued calls and messages without a dialer job are re-enqueued (lost enqueue, Redis flush). */
    DIAL_SWEEP_INTERVAL_MS: z.coerce.number().int().positive().default(30_000),
    /**
     * A call placed or ringing this long without news from the carrier is failed (`no_carrier_report`): its
     * progress lived in a Redis job or callback that was lost. Twilio gives up ringing after 600 s.
     */
    CALL_RINGING_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .positive()
      .default(15 * 60_000),
    /** The same for a call in progress; Twilio ends a call after 4 hours by default. */
    CALL_IN_PROGRESS_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .positive()
      .default(5 * 60 * 60_000),
    /**
     * The sandbox simulates real durations (seconds of ringing, minutes of talk); this factor shrinks them,
     * for test mode's calls too, in any deployment.
     */
    SANDBOX_TIME_SCALE: z.coerce.number().positive().max(1).default(1),
    /** Price of one started minute and of one SMS segment, in minor units of TELEPHONY_CURRENCY (sandbox, test mode). */
    SANDBOX_MINUTE_PRICE: z.coerce.number().int().nonnegative().default(2),
    SANDBOX_SEGMENT_PRICE: z.coerce.number().int().nonnegative().default(1),
    TELEPHONY_CURRENCY: z
      .string()
      .regex(/^[A-Z]{3}$/)
      .default('USD'),
  })
  // Twilio's credentials are needed exactly when Twilio is the carrier, in every environment: the sandbox
  // places nothing, and the Twilio callback routes refuse every request while the token is unset.
  .superRefine((env, context) => {
    if (env.TELEPHONY_CARRIER !== 'twilio') return;
    for (const name of ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN'] as const) {
      if (!env[name]) context.addIssue({ code: 'custom', path: [name], message: 'required when TELEPHONY_CARRIER=twilio' });
    }
  });

export type TelephonyEnv = z.infer<typeof envSchema>;

import { baseEnvSchema, mailEnvFields, portSchema, publicAddress, requireSmtpInProduction, workersSchema } from '@voice/kit';
import { z } from 'zod';

const minutes = (count: number) => count * 60_000;

export const envSchema = baseEnvSchema
  .extend({
    PORT: portSchema(8086),
    /**
     * The public address people reach the console at (through the gateway), e.g. https://app.example.com.
     * Invitation links are built from it; when it is https, the session cookie is always `Secure`.
     */
    PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).default(publicAddress(undefined)),
    /** Behind this many proxies (the gateway, an ingress before it): the client address comes from X-Forwarded-For. */
    TRUST_PROXY_HOPS: z.coerce.number().int().nonnegative().default(1),
    /** A session unused this long ends; each request moves the limit forward. */
    SESSION_IDLE_TIMEOUT_MS: z.coerce.number().int().positive().default(minutes(120)),
    /** A session ends this long after sign-in however busy it is, so a stolen cookie stops working. */
    SESSION_ABSOLUTE_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .positive()
      .default(minutes(12 * 60)),
    /** How long an invitation link works (once). */
    INVITATION_TTL_MS: z.coerce
      .number()
      .int()
      .positive()
      .default(minutes(7 * 24 * 60)),
    /** How long a password reset link works (once). */
    PASSWORD_RESET_TTL_MS: z.coerce.number().int().positive().default(minutes(30)),
    /** Invitations and password resets are e-mailed (kit's mail.ts). */
    ...mailEnvFields('Voice console <console@localhost>'),
    /** Sign-in attempts per client address per window; shared offices need room, scripts do not. */
    SIGN_IN_ADDRESS_LIMIT: z.coerce.number().int().positive().default(30),
    /** Sign-in attempts per account (e-mail address) per window; a correct password starts the count again. */
    SIGN_IN_ACCOUNT_LIMIT: z.coerce.number().int().positive().default(5),
    SIGN_IN_WINDOW_SECONDS: z.coerce
      .number()
      .int()
      .positive()
      .default(15 * 60),
    /** Shortest password accepted when an invitation is accepted. */
    PASSWORD_MIN_LENGTH: z.coerce.number().int().min(8).default(12),
    /** Background work: `all`, `none` or `cleanup` (deletes sessions and invitations 30 days after they ended). */
    WORKERS: workersSchema(['cleanup']),
    CLEANUP_INTERVAL_MS: z.coerce.number().int().positive().default(minutes(60)),
    /**
     * Lets OAuth client metadata documents live on private, loopback and link-local addresses: for local
     * clients in tests only, refused when NODE_ENV is production.
     */
    OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_ADDRESSES: z.stringbool().default(false),
    /** Dynamic client registrations per client address per hour. */
    OAUTH_REGISTRATIONS_PER_HOUR: z.coerce.number().int().positive().default(20),
    /** A PEM file of extra certificate authorities trusted when fetching client metadata documents (a test CA). */
    OAUTH_CLIENT_METADATA_CA_FILE: z.string().optional(),
    /** Open live streams (`/dashboard/live`) per process; past it a new one is 429 and the page stays as loaded. */
    LIVE_MAX_STREAMS: z.coerce.number().int().positive().default(2_000),
    /** Open live streams per session (a person's tabs). */
    LIVE_MAX_STREAMS_PER_SESSION: z.coerce.number().int().positive().default(6),
    /** A comment line on every live stream this often, so proxies keep a quiet connection open. */
    LIVE_HEARTBEAT_MS: z.coerce.number().int().positive().default(15_000),
    /** A live stream ends after this long and the browser reconnects, which checks the session again. */
    LIVE_STREAM_MAX_MS: z.coerce.number().int().positive().default(minutes(5)),
  })
  .superRefine((env, context) => {
    requireSmtpInProduction(env, context, 'password reset and invitation e-mails');
    if (env.NODE_ENV === 'production' && env.OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_ADDRESSES) {
      context.addIssue({
        code: 'custom',
        path: ['OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_ADDRESSES'],
        message: 'is for tests only; refused in production',
      });
    }
  });

export type ConsoleEnv = z.infer<typeof envSchema>;

import { baseEnvSchema, portSchema, workersSchema } from '@voice/kit';
import { publicAuditDefaults, requestBodyLimitBytes } from '@voice/proto';
import { z } from 'zod';

const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional();
const optionalUrl = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .pipe(z.url({ protocol: /^https?$/ }).optional())
  .optional();
const milliseconds = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const envSchema = baseEnvSchema
  .extend({
    PORT: portSchema(8083),
    // The official SDKs' own variable names. A provider is configured when its key is set; the base URL
    // points the SDK at any compatible server.
    OPENAI_API_KEY: optionalText,
    OPENAI_BASE_URL: optionalUrl,
    OPENAI_MODEL: z.string().trim().min(1).default('gpt-5.4'),
    ANTHROPIC_API_KEY: optionalText,
    ANTHROPIC_BASE_URL: optionalUrl,
    ANTHROPIC_MODEL: z.string().trim().min(1).default('claude-sonnet-4-6'),
    /** Upper bound for one provider's whole probe (its prompts run in parallel); the other is not waited for. */
    PROVIDER_TIMEOUT_MS: milliseconds(20_000),
    /** SDK retries of a 429/5xx/connection error, inside the timeout above. */
    PROVIDER_MAX_RETRIES: z.coerce.number().int().min(0).max(5).default(1),
    /** Brand score: also fetch the brand's page (SSRF-guarded) to add page findings to the recommendations. */
    BRAND_PAGE_CHECK: z
      .enum(['true', 'false'])
      .default('true')
      .transform((value) => value === 'true'),
    PAGE_FETCH_TIMEOUT_MS: milliseconds(5_000),
    PAGE_FETCH_MAX_BYTES: z.coerce.number().int().positive().default(1_048_576),
    /** Public marketing audit: requests per client address per window. */
    PUBLIC_AUDIT_LIMIT: z.coerce.number().int().positive().default(publicAuditDefaults.limit),
    PUBLIC_AUDIT_WINDOW_SECONDS: z.coerce.number().int().positive().default(publicAuditDefaults.windowSeconds),
    /** An audit of one URL is reused this long, so many visitors cost the audited site one fetch. */
    PUBLIC_AUDIT_CACHE_SECONDS: z.coerce.number().int().positive().default(publicAuditDefaults.cacheSeconds),
    /** Background work this process runs: `all`, `none` (an API-only replica) or `outbox` (publishes `recall.brand_scored`). */
    WORKERS: workersSchema(['outbox']),
    /** Largest request body; a document's text is capped separately (400 with the limit named). */
    BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(requestBodyLimitBytes.recall),
  })
  // Production needs a model provider: without one every brand score is 503 and recall answers carry no
  // grounded answer. One is enough, since one provider failing already gives a partial score that says so.
  .superRefine((env, context) => {
    if (env.NODE_ENV === 'production' && !env.OPENAI_API_KEY && !env.ANTHROPIC_API_KEY) {
      context.addIssue({ code: 'custom', path: ['OPENAI_API_KEY'], message: 'required in production, or ANTHROPIC_API_KEY (or both)' });
    }
  });

export type RecallEnv = z.infer<typeof envSchema>;

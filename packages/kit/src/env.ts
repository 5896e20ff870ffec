import { z } from 'zod';

export class EnvError extends Error {
  override readonly name = 'EnvError';
}

/**
 * Parses the process environment once, at start. A bad or missing variable stops the process with a
 * message naming every variable at fault, not a stack trace from deep inside a client library. An empty
 * variable counts as unset (so `FOO=` or compose's `${FOO:-}` means "use the default").
 */
export function parseEnv<S extends z.ZodObject>(schema: S, source: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const present = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined && value !== ''));
  const result = schema.safeParse(present);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const variable = issue.path.join('.') || '(environment)';
    return `${variable}: ${issue.message}`;
  });
  throw new EnvError(`Invalid environment: ${problems.join('; ')}`);
}

/** The variables every process shares (ARCHITECTURE.md, "the contract"). Deployables extend this. */
export const baseEnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  HOST: z.string().min(1).default('0.0.0.0'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).default('postgresql://postgres@127.0.0.1:5432/voice'),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6379'),
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  /** Prefix for every NATS subject, stream and consumer; empty in production, unique per test. */
  NATS_NAMESPACE: z
    .string()
    .regex(/^[a-z0-9_]*$/, 'lowercase letters, digits and underscores only')
    .default(''),
  /** Prefix for every Redis key this process writes; lets tests and tenants of one Redis stay apart. */
  REDIS_PREFIX: z.string().default('voice:'),
  /** Shared secret the gateway signs identity headers with; at least 32 characters. */
  INTERNAL_SIGNING_SECRET: z.string().min(32, 'must be at least 32 characters').default('dev-only-signing-secret-change-me-0000'),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().positive().default(10_000),
});
export type BaseEnv = z.infer<typeof baseEnvSchema>;

export function portSchema(defaultPort: number) {
  return z.coerce.number().int().min(0).max(65_535).default(defaultPort);
}

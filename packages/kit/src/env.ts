import { z } from 'zod';
import { createLogger } from './logger.js';

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
  const problems: string[] = [];
  if (present.NODE_ENV === 'production') {
    for (const [variable, field] of Object.entries(schema.shape)) {
      const published = developmentSecrets.get(field as z.ZodType);
      if (published === undefined) continue;
      if (present[variable] === undefined)
        problems.push(`${variable}: required in production (the default is for development and test only)`);
      else if (present[variable] === published) problems.push(`${variable}: the published development value; set a secret of your own`);
    }
  }
  const result = schema.safeParse(present);
  if (result.success) problems.push(...redisModeProblems(result.data));
  if (result.success && problems.length === 0) return result.data;
  for (const issue of result.error?.issues ?? []) problems.push(`${issue.path.join('.') || '(environment)'}: ${issue.message}`);
  throw new EnvError(`Invalid environment: ${problems.join('; ')}`);
}

/** REDIS_URL, REDIS_MODE and REDIS_SENTINEL_NAME must agree; one variable's schema cannot see the others. */
function redisModeProblems(env: Record<string, unknown>): string[] {
  if (typeof env.REDIS_URL !== 'string') return [];
  const several = env.REDIS_URL.includes(',');
  if (env.REDIS_MODE === 'single' && several) return ['REDIS_URL: lists several servers; set REDIS_MODE=cluster or REDIS_MODE=sentinel'];
  if (env.REDIS_MODE === 'sentinel' && !env.REDIS_SENTINEL_NAME)
    return ['REDIS_SENTINEL_NAME: required with REDIS_MODE=sentinel (the name of the primary the sentinels watch)'];
  return [];
}

/** A REDIS_URL: one redis:// or rediss:// URL, or several comma separated (the nodes of a cluster, or the sentinels). */
const redisUrlList = z.string().refine(
  (value) =>
    value.split(',').every((one) => {
      try {
        return /^rediss?:$/.test(new URL(one.trim()).protocol);
      } catch {
        return false;
      }
    }),
  'one redis:// or rediss:// URL, or several separated by commas',
);

/** The development values of secrets, by the schema that declares them (see developmentSecret). */
const developmentSecrets = new WeakMap<z.ZodType, string>();

/**
 * A secret with a default for development and test only. That default is published in this repository,
 * so in production (NODE_ENV=production) the variable must be set, to anything but that value, or
 * parseEnv refuses to start the process, naming it: a process that fell back on it would trust anyone.
 */
export function developmentSecret(schema: z.ZodString, developmentValue: string): z.ZodDefault<z.ZodString> {
  const withDefault = schema.default(developmentValue);
  developmentSecrets.set(withDefault, developmentValue);
  return withDefault;
}

/**
 * parseEnv for a process's entry point: a bad environment ends the process with one fatal log line naming
 * every variable at fault (exit code 1), not an exception's stack trace.
 */
export function parseProcessEnv<S extends z.ZodObject>(schema: S, name: string): z.infer<S> {
  try {
    return parseEnv(schema);
  } catch (error) {
    if (!(error instanceof EnvError)) throw error;
    createLogger(name, 'fatal').fatal(error.message);
    process.exit(1);
  }
}

/** The variables every process shares (ARCHITECTURE.md, "the contract"). Deployables extend this. */
export const baseEnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  HOST: z.string().min(1).default('0.0.0.0'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).default('postgresql://postgres@127.0.0.1:5432/voice'),
  REDIS_URL: redisUrlList.default('redis://127.0.0.1:6379'),
  /** How the servers REDIS_URL lists are run: one server, a Redis Cluster, or a primary found through Sentinel. */
  REDIS_MODE: z.enum(['single', 'cluster', 'sentinel']).default('single'),
  /** With REDIS_MODE=sentinel: the name the sentinels know the primary by (`sentinel monitor <name> …`). */
  REDIS_SENTINEL_NAME: z.string().min(1).optional(),
  /** One NATS server, or the servers of a cluster, comma separated. */
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  /**
   * Copies JetStream keeps of the events stream (and its consumers): 1 on one server, 3 on a cluster of
   * three or more, so losing a server loses no event. A running stream is changed to this number.
   */
  JETSTREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /** Prefix for every NATS subject, stream and consumer; empty in production, unique per test. */
  NATS_NAMESPACE: z
    .string()
    .regex(/^[a-z0-9_]*$/, 'lowercase letters, digits and underscores only')
    .default(''),
  /**
   * Prefix for every Redis key this process writes; lets tests and tenants of one Redis stay apart. No
   * braces: the keys' own hash tags (`{org_x}`) choose their Redis Cluster slot, and a tag in the prefix
   * would come first and put every key in one slot.
   */
  REDIS_PREFIX: z
    .string()
    .regex(/^[^{}]*$/, "no braces (a hash tag in the prefix would override every key's own)")
    .default('voice:'),
  /** Shared secret the gateway signs identity headers (and every NATS request) with; at least 32 characters. */
  INTERNAL_SIGNING_SECRET: developmentSecret(
    z.string().min(32, 'must be at least 32 characters'),
    'dev-only-signing-secret-change-me-0000',
  ),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().positive().default(10_000),
});
export type BaseEnv = z.infer<typeof baseEnvSchema>;

/** The gateway's port when PORT does not say: the platform's public port on a developer's machine. */
export const defaultGatewayPort = 8080;

/**
 * The platform's public address (scheme, host, port; no trailing slash), worked out here only: PUBLIC_BASE_URL,
 * else the gateway on this machine at `gatewayPort`. The gateway passes its own PORT, `npm start` and the
 * operator CLI (`npm run admin`) the PORT they were given (the gateway's, as for `npm start`), and a service's
 * env schema nothing: it defaults to the gateway's default port, and `npm start` sets its PUBLIC_BASE_URL.
 */
export function publicAddress(publicBaseUrl: string | undefined, gatewayPort: number | string = defaultGatewayPort): string {
  return (publicBaseUrl || `http://localhost:${gatewayPort}`).replace(/\/+$/, '');
}

export function portSchema(defaultPort: number) {
  return z.coerce.number().int().min(0).max(65_535).default(defaultPort);
}

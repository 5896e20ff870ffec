import { baseEnvSchema, defaultGatewayPort, defaultLingeringLimits, portSchema, publicAddress, workersSchema } from '@voice/kit';
import { accessTokenLifetimeSeconds } from '@voice/proto';
import { z } from 'zod';

const upstream = (defaultUrl: string) => z.url({ protocol: /^https?$/ }).default(defaultUrl);

export const envSchema = baseEnvSchema.extend({
  PORT: portSchema(defaultGatewayPort),
  /** Where Prometheus scrapes `/metrics`: a port of its own, never the public PORT. */
  METRICS_PORT: portSchema(9464),
  TELEPHONY_URL: upstream('http://127.0.0.1:8081'),
  LEADS_URL: upstream('http://127.0.0.1:8082'),
  RECALL_URL: upstream('http://127.0.0.1:8083'),
  MCP_URL: upstream('http://127.0.0.1:8084'),
  WEBHOOKS_URL: upstream('http://127.0.0.1:8085'),
  CONSOLE_URL: upstream('http://127.0.0.1:8086'),
  /** Longest a proxied request may take; brand scoring waits on two model providers. */
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  /** The quota check's deadline: past it the request is refused with 503, never let through unmetered. */
  QUOTA_TIMEOUT_MS: z.coerce.number().int().positive().default(450),
  KEY_CACHE_TTL_MS: z.coerce.number().int().nonnegative().default(30_000),
  AUDIT_BATCH_SIZE: z.coerce.number().int().positive().max(1_000).default(200),
  AUDIT_FLUSH_MS: z.coerce.number().int().positive().default(500),
  /** How long the gateway collects audit records before publishing them (what a crash can lose at most). */
  AUDIT_PUBLISH_MS: z.coerce.number().int().positive().default(200),
  /**
   * Most audit records held in memory while NATS does not take them (about 60 s of 1,500 requests a second,
   * some 40 MB); past it new records are dropped and counted in gateway_audit_records_dropped_total.
   */
  AUDIT_MAX_HELD_RECORDS: z.coerce.number().int().positive().default(100_000),
  /** At shutdown, how long to wait for NATS to take the held audit records (within SHUTDOWN_GRACE_MS). */
  AUDIT_SHUTDOWN_WAIT_MS: z.coerce.number().int().positive().default(5_000),
  /**
   * Background work this process runs: `all`, `none` or a list of `audit-writer` (the JetStream consumer that
   * inserts audit records, and the retention job) and `outbox` (publishes `org.plan_changed`). Serving
   * replicas may run `outbox` only, and a few replicas `audit-writer`, to keep its database work off the
   * request path.
   */
  WORKERS: workersSchema(['audit-writer', 'outbox']),
  AUDIT_RETENTION_INTERVAL_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(60 * 60 * 1000),
  /**
   * The platform's public address (scheme, host, port; no path), as clients reach the gateway: the OAuth
   * protected resource metadata and the WWW-Authenticate challenges name it. Unset: http://localhost:PORT.
   */
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** How long an OAuth access token lives (default one hour, the contract's); tests shorten it. */
  OAUTH_ACCESS_TOKEN_SECONDS: z.coerce.number().int().positive().default(accessTokenLifetimeSeconds),
  /**
   * After a 413, the connection is read and discarded for at most this long, this many bytes, and while the
   * client keeps sending at least every LINGERING_TIMEOUT_MS, then closed (nginx's lingering close): closed at
   * once, the client still sending would get a reset instead of the answer.
   */
  LINGERING_TIME_MS: z.coerce.number().int().positive().default(defaultLingeringLimits.timeMs),
  LINGERING_TIMEOUT_MS: z.coerce.number().int().positive().default(defaultLingeringLimits.idleMs),
  LINGERING_MAX_BYTES: z.coerce.number().int().nonnegative().default(defaultLingeringLimits.maxBytes),
  /** Where clients come from: trust X-Forwarded-For from this many proxies (the ingress), or none. */
  TRUST_PROXY_HOPS: z.coerce.number().int().nonnegative().default(0),
});

export type GatewayEnv = z.infer<typeof envSchema>;

/** The public base URL without a trailing slash: PUBLIC_BASE_URL, or this process's port on localhost. */
export function publicBaseUrl(env: Pick<GatewayEnv, 'PUBLIC_BASE_URL' | 'PORT'>): string {
  return publicAddress(env.PUBLIC_BASE_URL, env.PORT);
}

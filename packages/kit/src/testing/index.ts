import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect as connectNats } from '@nats-io/transport-node';
import { eventsStreamName } from '@voice/proto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { deadLettersStreamName } from '../dead-letters.js';
import { natsServer } from '../nats/server-url.js';

/**
 * Test isolation on shared servers: every test file gets its own database (cloned from a migrated
 * template, so it costs a file copy, not a migration run), its own Redis key prefix and its own NATS
 * namespace (subjects, stream and consumers).
 */
export interface TestContext {
  databaseUrl: string;
  redisUrl: string;
  natsUrl: string;
  redisPrefix: string;
  natsNamespace: string;
  /** The environment a deployable under test should parse. */
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

export const testServerUrls = {
  postgres: process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/voice',
  redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  nats: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
};

export { type SampleEventType, sampleEventData, sampleEventTypes } from './events.js';
export { testSigningSecret } from './identity.js';

import { testSigningSecret } from './identity.js';

function repoRoot(): string {
  let dir = process.cwd();
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { workspaces?: unknown };
      if (manifest.workspaces) return dir;
    } catch {
      // no package.json here; keep walking up
    }
    const parent = join(dir, '..');
    if (parent === dir) throw new Error('repository root not found');
    dir = parent;
  }
}

/** A digest of every migration file, so the template is rebuilt exactly when a migration changes. */
function migrationsDigest(root: string): string {
  const hash = createHash('sha256');
  const dirs = [join(root, 'gateway')];
  try {
    for (const name of readdirSync(join(root, 'services')).sort()) dirs.push(join(root, 'services', name));
  } catch {
    // no services folder yet
  }
  for (const dir of dirs) {
    const migrations = join(dir, 'prisma', 'migrations');
    let entries: string[];
    try {
      entries = readdirSync(migrations).sort();
    } catch {
      continue;
    }
    for (const entry of entries) {
      const file = join(migrations, entry, 'migration.sql');
      try {
        if (statSync(file).isFile()) hash.update(file.slice(root.length)).update(readFileSync(file));
      } catch {
        // lock files and the like
      }
    }
  }
  return hash.digest('hex').slice(0, 12);
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function adminQuery<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

let templateReady: Promise<string> | undefined;

/** Creates (once per migration set, across processes) a database with every service's migrations applied. */
function ensureTemplate(serverUrl: string): Promise<string> {
  templateReady ??= (async () => {
    const root = repoRoot();
    const template = `voice_tpl_${migrationsDigest(root)}`;
    await adminQuery(serverUrl, async (client) => {
      // One process builds the template; the others wait on the lock and then find it done.
      await client.query('SELECT pg_advisory_lock(727001)');
      try {
        const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1 AND datistemplate', [template]);
        if (exists.rowCount) return;
        await client.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
        await client.query(`CREATE DATABASE "${template}"`);
        // Loaded here, not at the top, so pure unit tests do not pull in the Prisma engine.
        const { migrateDatabase } = await import('@voice/migrator');
        await migrateDatabase({ databaseUrl: withDatabase(serverUrl, template), rootDir: root, quiet: true });
        await client.query(`ALTER DATABASE "${template}" WITH IS_TEMPLATE true`);
      } finally {
        await client.query('SELECT pg_advisory_unlock(727001)');
      }
    });
    return template;
  })();
  return templateReady;
}

/** A fresh, fully migrated database of its own. */
export async function createTestDatabase(serverUrl = testServerUrls.postgres): Promise<{ url: string; drop(): Promise<void> }> {
  const template = await ensureTemplate(serverUrl);
  const name = `voice_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(serverUrl, async (client) => {
    // Two clones of one template at the same instant can collide ("source database is being accessed").
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
        return;
      } catch (error) {
        if ((error as { code?: string }).code !== '55006' || attempt >= 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
      }
    }
  });
  return {
    url: withDatabase(serverUrl, name),
    drop: () => adminQuery(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => {}),
  };
}

async function deleteRedisKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => {});
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
  } catch {
    // Redis may be the thing a test stopped; nothing to clean then.
  } finally {
    redis.disconnect();
  }
}

async function deleteNatsStream(natsUrl: string, namespace: string): Promise<void> {
  try {
    const connection = await connectNats({ ...natsServer(natsUrl), reconnect: false, timeout: 1_000 });
    try {
      const manager = await jetstreamManager(connection);
      await manager.streams.delete(`${eventsStreamName}_${namespace.toUpperCase()}`).catch(() => false);
      await manager.streams.delete(`${deadLettersStreamName}_${namespace.toUpperCase()}`).catch(() => false);
    } finally {
      await connection.close();
    }
  } catch {
    // NATS may be the thing a test stopped; nothing to clean then.
  }
}

/** Everything one test file needs to run its deployables in isolation. */
export async function createTestContext(): Promise<TestContext> {
  const database = await createTestDatabase();
  const token = randomBytes(5).toString('hex');
  const redisPrefix = `test:${token}:`;
  const natsNamespace = `t${token}`;
  return {
    databaseUrl: database.url,
    redisUrl: testServerUrls.redis,
    natsUrl: testServerUrls.nats,
    redisPrefix,
    natsNamespace,
    env: {
      NODE_ENV: 'test',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      DATABASE_URL: database.url,
      REDIS_URL: testServerUrls.redis,
      NATS_URL: testServerUrls.nats,
      REDIS_PREFIX: redisPrefix,
      NATS_NAMESPACE: natsNamespace,
      INTERNAL_SIGNING_SECRET: testSigningSecret,
    },
    async cleanup() {
      await Promise.allSettled([
        database.drop(),
        deleteRedisKeys(testServerUrls.redis, redisPrefix),
        deleteNatsStream(testServerUrls.nats, natsNamespace),
      ]);
    },
  };
}
export * from './admin-cli.js';
export * from './clusters.js';
export * from './eventually.js';
export * from './fake-llm-providers.js';
export * from './fake-messaging.js';
export * from './identity.js';
export * from './otlp-receiver.js';
export * from './recording-logger.js';
export * from './servers.js';
export * from './streams.js';
export * from './webhook-receiver.js';

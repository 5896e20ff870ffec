import type { Logger } from '@voice/kit';
import type { Redis } from 'ioredis';

/**
 * Whether Redis writes an append-only file, by `CONFIG GET appendonly` or, where CONFIG is disabled (as
 * managed Redis services often do), by `INFO persistence`; undefined when neither tells.
 */
export async function redisAppendOnly(redis: Redis): Promise<boolean | undefined> {
  try {
    const [, value] = (await redis.config('GET', 'appendonly')) as string[];
    if (value !== undefined) return value === 'yes';
  } catch {
    // CONFIG renamed or refused: ask INFO instead.
  }
  try {
    const match = /^aof_enabled:(\d)/m.exec(await redis.info('persistence'));
    return match ? match[1] === '1' : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Quota counters and key end markers live in Redis: without an append-only file a Redis restart loses
 * them. The gateway then rebuilds counters from the audit log, minus what it had not written yet, and
 * revocations fall back to the key cache's TTL; production therefore runs Redis with `appendonly yes`
 * and `appendfsync everysec` (infra/k8s/README.md). Says so at start, without refusing to start.
 */
export async function warnWithoutPersistence(redis: Redis, logger: Logger): Promise<void> {
  const appendOnly = await redisAppendOnly(redis);
  if (appendOnly === false) {
    logger.warn(
      'Redis persistence is off (appendonly no): a Redis restart loses quota counters (rebuilt from the audit log, minus its last second) and revocation markers (then bounded by KEY_CACHE_TTL_MS). Production needs appendonly yes with appendfsync everysec.',
    );
  } else if (appendOnly === undefined) {
    logger.info(
      'Redis persistence unknown (CONFIG and INFO persistence refused); production needs appendonly yes with appendfsync everysec',
    );
  }
}

// The deployable's process (kit's runService), imported by main.ts once tracing is set up.
import { runService } from '@voice/kit';
import { buildApp } from './app.js';
import { connectDeps } from './deps.js';
import { envSchema } from './env.js';
import { warnWithoutPersistence } from './quota/persistence.js';

await runService(
  'gateway',
  envSchema,
  async (env, logger) => {
    const deps = await connectDeps(env, { logger });
    // Beside the rest of the start, not before it: its outcome is a line in the log, nothing waits on it.
    warnWithoutPersistence(deps.redis, logger).catch(() => {});
    return deps;
  },
  buildApp,
);

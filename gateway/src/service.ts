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
    await warnWithoutPersistence(deps.redis, logger);
    return deps;
  },
  buildApp,
);

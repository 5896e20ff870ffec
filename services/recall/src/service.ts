// The deployable's process (kit's runService), imported by main.ts once tracing is set up.
import { runService } from '@voice/kit';
import { buildApp } from './app.js';
import { connectDeps } from './deps.js';
import { envSchema } from './env.js';

await runService(
  'recall',
  envSchema,
  async (env, logger) => {
    const deps = await connectDeps(env, logger);
    if (deps.providers.length === 0) {
      logger.warn('no model provider configured: recall answers and brand scores need OPENAI_API_KEY and/or ANTHROPIC_API_KEY');
    }
    return deps;
  },
  buildApp,
);

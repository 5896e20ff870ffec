// The deployable's process (kit's runService), imported by main.ts once tracing is set up.
import { runService } from '@voice/kit';
import { buildApp } from './app.js';
import { connectDeps } from './deps.js';
import { envSchema } from './env.js';

// No Redis: the mcp service keeps its state in Postgres.
await runService('mcp', envSchema, connectDeps, (deps) => buildApp(deps), { uses: ['postgres', 'nats'] });

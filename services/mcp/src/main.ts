// The entry point. Tracing starts first, before the service's code is imported: it patches the instrumented
// packages (pg, ioredis) as it starts. With no OTEL_* variable set it loads nothing (ARCHITECTURE.md, Tracing).
import { startTracing } from '@voice/kit/tracing';

await startTracing('mcp');
await import('./service.js');

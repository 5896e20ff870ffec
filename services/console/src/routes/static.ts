import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

/** The console's own files (a stylesheet; later scripts), read once and served from the same origin as pages. */
const files = new Map([
  ['console.css', { type: 'text/css; charset=utf-8', body: readFileSync(new URL('../static/console.css', import.meta.url)) }],
]);

export function staticRoutes(app: FastifyInstance): void {
  app.get('/static/:file', async (request, reply) => {
    const file = files.get((request.params as { file: string }).file);
    if (!file) return reply.callNotFound();
    return reply.type(file.type).header('cache-control', 'public, max-age=3600').send(file.body);
  });
}

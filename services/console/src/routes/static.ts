import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

const file = (name: string, type: string) => [name, { type, body: readFileSync(new URL(`../static/${name}`, import.meta.url)) }] as const;

/** The console's own files (a stylesheet, the copy button's and the live regions' scripts), read once and served from the same origin as pages. */
const files = new Map([
  file('console.css', 'text/css; charset=utf-8'),
  file('copy.js', 'text/javascript; charset=utf-8'),
  file('live.js', 'text/javascript; charset=utf-8'),
]);

export function staticRoutes(app: FastifyInstance): void {
  app.get('/static/:file', { config: { access: 'asset' } }, async (request, reply) => {
    const file = files.get((request.params as { file: string }).file);
    if (!file) return reply.callNotFound();
    return reply.type(file.type).header('cache-control', 'public, max-age=3600').send(file.body);
  });
}

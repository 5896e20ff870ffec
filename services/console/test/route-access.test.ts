import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import type { ConsoleContext } from '../src/domain/context.js';
import { installSessionCheck } from '../src/http/session.js';

// A console route is closed unless it says otherwise: one registered without `config.access` stops the
// console from starting, rather than answering without the session and form-token checks.

// Registration never reads the context (the checks use it per request), and these routes are never asked.
const unusedContext = {} as ConsoleContext & { bus: never };

/** A started app whose pages are checked as the console's are, with the routes `register` adds. */
async function startPages(register: (pages: FastifyInstance) => void): Promise<FastifyInstance> {
  const app = Fastify();
  try {
    await app.register(async (pages) => {
      installSessionCheck(pages, unusedContext);
      register(pages);
    });
    await app.ready();
    return app;
  } catch (error) {
    await app.close();
    throw error;
  }
}

test('a console route that declares no access level stops the console from starting, naming the route', async () => {
  await assert.rejects(
    startPages((pages) => pages.get('/forgotten', async () => 'open to anyone')),
    /console route GET \/forgotten must declare config\.access/,
  );
});

test('an access level the console does not know is refused too', async () => {
  await assert.rejects(
    startPages((pages) => pages.post('/typo', { config: { access: 'members' as never } }, async () => 'open')),
    /console route POST \/typo must declare config\.access/,
  );
});

test('a route that declares its access registers and answers', async () => {
  const app = await startPages((pages) => pages.get('/static/file.css', { config: { access: 'asset' } }, async () => 'body {}'));
  const response = await app.inject({ method: 'GET', url: '/static/file.css' });
  assert.equal(response.statusCode, 200);
  assert.equal(response.body, 'body {}');
  await app.close();
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { idSchema } from '@voice/proto';
import { z } from 'zod';
import { baseEnvSchema, EnvError, parseEnv } from '../src/env.js';
import { ApiError, envelope, toApiError } from '../src/errors.js';
import { signIdentity, verifyIdentity } from '../src/identity.js';
import { eventId, newId, randomBase62 } from '../src/ids.js';
import { natsServer } from '../src/nats.js';
import { afterPosition, createdBetween, decodeCursor, decodeTwoWayCursor, encodeCursor, toPage, toTwoWayPage } from '../src/pagination.js';
import { bullmqOptions, createRedisClient, redisNodes } from '../src/redis.js';
import { eventually } from '../src/testing/eventually.js';
import { testIdentity } from '../src/testing/identity.js';

describe('env', () => {
  test('a bad or missing variable is named in one readable message', () => {
    const schema = z.object({ PORT: z.coerce.number().int().min(1), DATABASE_URL: z.url() });
    assert.throws(
      () => parseEnv(schema, { PORT: 'eighty', DATABASE_URL: 'nope' }),
      (error: unknown) => error instanceof EnvError && /PORT: /.test(error.message) && /DATABASE_URL: /.test(error.message),
    );
    assert.deepEqual(parseEnv(schema, { PORT: '80', DATABASE_URL: 'postgresql://h/db' }), { PORT: 80, DATABASE_URL: 'postgresql://h/db' });
  });

  test('an empty variable means unset, so its default applies', () => {
    const schema = z.object({ TOKEN: z.string().min(1).optional(), PORT: z.coerce.number().default(8080) });
    assert.deepEqual(parseEnv(schema, { TOKEN: '', PORT: '' }), { PORT: 8080 });
  });
});

describe('Redis configuration', () => {
  const nodes = 'redis://127.0.0.1:7001,redis://127.0.0.1:7002,redis://127.0.0.1:7003';

  test('REDIS_URL lists several nodes only with REDIS_MODE cluster or sentinel, and sentinel names its primary', () => {
    assert.equal(parseEnv(baseEnvSchema, {}).REDIS_MODE, 'single');
    assert.equal(parseEnv(baseEnvSchema, { REDIS_URL: nodes, REDIS_MODE: 'cluster' }).REDIS_URL, nodes);
    const refused = (env: Record<string, string>, pattern: RegExp) =>
      assert.throws(
        () => parseEnv(baseEnvSchema, env),
        (error: unknown) => error instanceof EnvError && pattern.test(error.message),
      );
    refused({ REDIS_URL: nodes }, /REDIS_URL: lists several servers; set REDIS_MODE=cluster/);
    refused({ REDIS_URL: nodes, REDIS_MODE: 'sentinel' }, /REDIS_SENTINEL_NAME: required with REDIS_MODE=sentinel/);
    refused({ REDIS_URL: 'redis://a:1,http://b:2', REDIS_MODE: 'cluster' }, /REDIS_URL: one redis:\/\/ or rediss:\/\/ URL/);
    refused({ REDIS_MODE: 'ring' }, /REDIS_MODE: /);
    refused({ REDIS_PREFIX: 'voice:{a}:' }, /REDIS_PREFIX: no braces/);
    refused({ JETSTREAM_REPLICAS: '0' }, /JETSTREAM_REPLICAS: /);
  });

  test('the first URL carries credentials, database and TLS for every node', () => {
    assert.deepEqual(redisNodes('rediss://app:p%40ss@10.0.0.1:7001/2,rediss://10.0.0.2'), {
      nodes: [
        { host: '10.0.0.1', port: 7001 },
        { host: '10.0.0.2', port: 6379 },
      ],
      auth: { username: 'app', password: 'p@ss', db: 2, tls: {} },
    });
  });

  test('the client follows the mode: a Cluster for cluster, Sentinel for sentinel, and several URLs alone are refused', () => {
    const cluster = createRedisClient({ REDIS_URL: nodes, REDIS_MODE: 'cluster' }, { lazyConnect: true });
    assert.equal((cluster as unknown as { isCluster: boolean }).isCluster, true);
    cluster.disconnect();
    const sentinel = createRedisClient({ REDIS_URL: nodes, REDIS_MODE: 'sentinel', REDIS_SENTINEL_NAME: 'voice' }, { lazyConnect: true });
    assert.deepEqual(sentinel.options.sentinels, redisNodes(nodes).nodes);
    assert.equal(sentinel.options.name, 'voice');
    sentinel.disconnect();
    assert.throws(() => createRedisClient(nodes), /REDIS_MODE=cluster or REDIS_MODE=sentinel/);
  });

  test('BullMQ keys share one hash tag on a Cluster, and keep their names elsewhere', () => {
    assert.equal(bullmqOptions({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_PREFIX: 'voice:' }).prefix, 'voice:bull');
    const onCluster = bullmqOptions({ REDIS_URL: nodes, REDIS_MODE: 'cluster', REDIS_PREFIX: 'voice:' });
    assert.equal(onCluster.prefix, '{voice:bull}');
    (onCluster.connection as { disconnect(): void }).disconnect();
  });
});

describe('NATS URL', () => {
  test('credentials in the URL become connection options, and leave the server address', () => {
    assert.deepEqual(natsServer('nats://127.0.0.1:4222'), { servers: 'nats://127.0.0.1:4222' });
    assert.deepEqual(natsServer('nats://voice:p%40ss@nats.internal:4222'), {
      servers: 'nats://nats.internal:4222',
      user: 'voice',
      pass: 'p@ss',
    });
    assert.deepEqual(natsServer('tls://s3cr3t-token@nats.internal:4222'), { servers: 'tls://nats.internal:4222', token: 's3cr3t-token' });
  });

  test('several servers, comma separated, become the server list; the first credentials apply to all', () => {
    assert.deepEqual(natsServer('nats://voice:pw@10.0.0.1:4222, nats://10.0.0.2:4222,nats://10.0.0.3:4222'), {
      servers: ['nats://10.0.0.1:4222', 'nats://10.0.0.2:4222', 'nats://10.0.0.3:4222'],
      user: 'voice',
      pass: 'pw',
    });
  });
});

describe('errors', () => {
  test('the envelope carries code, message, param and request id; status comes from the one table', () => {
    const error = new ApiError('dnc_blocked', 'Listed.', { param: 'to' });
    assert.equal(error.status, 422);
    assert.deepEqual(envelope(error, 'req_1'), { error: { code: 'dnc_blocked', message: 'Listed.', param: 'to', request_id: 'req_1' } });
    assert.deepEqual(ApiError.fromWire(error.toWire()).toWire(), error.toWire());
  });

  test('framework errors map to envelope codes, unknown errors to internal without leaking', () => {
    assert.equal(
      toApiError(Object.assign(new Error('x'), { code: 'FST_ERR_CTP_INVALID_JSON_BODY', statusCode: 400 })).code,
      'invalid_request',
    );
    assert.equal(
      toApiError(Object.assign(new Error('x'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 })).code,
      'payload_too_large',
    );
    const internal = toApiError(new Error('secret detail'));
    assert.equal(internal.code, 'internal');
    assert.equal(internal.message.includes('secret detail'), false);
  });
});

describe('errors: 503', () => {
  test('every 503 carries Retry-After, including one rebuilt from the wire after crossing NATS', () => {
    const raised = new ApiError('unavailable', 'The database is unavailable; retry shortly.');
    assert.equal(raised.headers['retry-after'], '1');
    const rebuilt = ApiError.fromWire(raised.toWire());
    assert.deepEqual([rebuilt.status, rebuilt.headers['retry-after']], [503, '1']);
    // A raiser that knows better keeps its own figure.
    assert.equal(new ApiError('unavailable', 'Later.', { headers: { 'retry-after': '30' } }).headers['retry-after'], '30');
    assert.deepEqual(new ApiError('not_found', 'No.').headers, {});
  });
});

describe('ids', () => {
  test('prefixed, base62, unique', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newId('lead')));
    assert.equal(ids.size, 1000);
    for (const id of ids) assert.match(id, /^lead_[0-9A-Za-z]{20}$/);
  });

  test('characters are uniform over base62, across many refills of the random pool', () => {
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    const counts = new Map<string, number>();
    // 620,000 characters draw about 76 refills of the 8 KiB pool; each character is expected 10,000 times.
    for (const character of randomBase62(620_000)) counts.set(character, (counts.get(character) ?? 0) + 1);
    assert.deepEqual([...counts.keys()].sort(), [...alphabet].sort());
    // Modulo bias (byte % 62 without rejection) would give the first eight about 12,100 and the rest about 9,700.
    for (const [character, count] of counts) assert.ok(Math.abs(count - 10_000) < 600, `${character} appeared ${count} times`);
  });

  test('event ids, random or derived from a cause, have the published evt_ shape; a derived one is the same for the same cause', () => {
    const published = idSchema('event');
    // The causes the publishers derive ids from: an approval id, a call's state, a lead's contact, an enrollment.
    const causes = ['approval.requested:apr_4f9XzQ2mN7bR1tY8kLp0', 'call_4f9XzQ2mN7bR1tY8kLp0:completed', 'contacted:enr_x:0', ''];
    for (const id of [eventId(), ...causes.map((cause) => eventId(cause))]) assert.ok(published.safeParse(id).success, id);
    assert.equal(eventId(causes[0]), eventId(causes[0]));
    assert.notEqual(eventId(causes[0]), eventId('approval.resolved:apr_4f9XzQ2mN7bR1tY8kLp0'));
    assert.notEqual(eventId(), eventId());
  });
});

describe('keyset cursors', () => {
  const filters = { direction: 'inbound', outcome: undefined };

  test('round-trip a position for the same filters', () => {
    const position = { createdAt: new Date('2026-11-25T10:00:00.123Z'), id: 'call_abc' };
    assert.deepEqual(decodeCursor(encodeCursor(position, filters), { direction: 'inbound' }), position);
  });

  test('a cursor for other filters, or one that does not decode, is invalid_cursor', () => {
    const cursor = encodeCursor({ createdAt: new Date(), id: 'call_abc' }, filters);
    for (const [candidate, withFilters] of [
      [cursor, { direction: 'outbound' }],
      ['not-a-cursor', filters],
      [Buffer.from('{"v":1}').toString('base64url'), filters],
      [`${cursor}x`, filters],
    ] as const) {
      assert.throws(
        () => decodeCursor(candidate, withFilters),
        (error: unknown) => error instanceof ApiError && error.code === 'invalid_cursor' && error.param === 'cursor',
      );
    }
  });

  test('a page from limit + 1 rows says whether there is more', () => {
    const rows = [3, 2, 1].map((n) => ({ createdAt: new Date(n * 1000), id: `x_${n}` }));
    const page = toPage(rows, 2, {}, (row) => row.id);
    assert.deepEqual(page.data, ['x_3', 'x_2']);
    assert.equal(page.has_more, true);
    assert.deepEqual(decodeCursor(page.next_cursor ?? undefined, {}), { createdAt: new Date(2000), id: 'x_2' });
    assert.deepEqual(toPage(rows.slice(0, 2), 2, {}, (row) => row.id).next_cursor, null);
  });

  test('a two-way page: Older and Newer cursors, and a Newer page read in reverse comes back newest first', () => {
    const rows = [5, 4, 3].map((n) => ({ createdAt: new Date(n * 1000), id: `x_${n}` }));
    const top = toTwoWayPage(rows, 2, {}, undefined, (row) => row.id);
    assert.deepEqual([top.data, top.has_more, top.prev_cursor], [['x_5', 'x_4'], true, null]);
    assert.deepEqual(decodeTwoWayCursor(top.next_cursor ?? undefined, {}), {
      position: { createdAt: new Date(4000), id: 'x_4' },
      direction: 'older',
    });
    // Page 2 came from an Older cursor: it has a Newer one at its first item.
    const older = { position: { createdAt: new Date(4000), id: 'x_4' }, direction: 'older' as const };
    const second = toTwoWayPage(rows.slice(2), 2, {}, older, (row) => row.id);
    assert.deepEqual([second.data, second.has_more, second.next_cursor], [['x_3'], false, null]);
    const newer = decodeTwoWayCursor(second.prev_cursor ?? undefined, {});
    assert.deepEqual(newer, { position: { createdAt: new Date(3000), id: 'x_3' }, direction: 'newer' });
    // A Newer page's rows arrive oldest first (ascending from the position), one extra when more are newer.
    const back = toTwoWayPage(
      [4, 5].map((n) => ({ createdAt: new Date(n * 1000), id: `x_${n}` })),
      2,
      {},
      newer,
      (row) => row.id,
    );
    assert.deepEqual([back.data, back.has_more, back.prev_cursor], [['x_5', 'x_4'], true, null]);
    assert.ok(back.next_cursor);
  });

  test('a Newer cursor is refused by a list that pages one way only', () => {
    const newer = encodeCursor({ createdAt: new Date(), id: 'x_1' }, {}, 'newer');
    assert.throws(
      () => decodeCursor(newer, {}),
      (error: unknown) => error instanceof ApiError && error.code === 'invalid_cursor',
    );
    assert.equal(decodeTwoWayCursor(newer, {})?.direction, 'newer');
    assert.throws(
      () => decodeTwoWayCursor(newer, { direction: 'inbound' }),
      (error: unknown) => error instanceof ApiError && error.code === 'invalid_cursor',
    );
  });

  test('the created-between filter and the position bound created_at side by side', () => {
    const after = '2026-11-01T00:00:00.000Z';
    const before = '2026-11-02T00:00:00.000Z';
    const position = { createdAt: new Date('2026-11-01T12:00:00.000Z'), id: 'call_abc' };
    assert.deepEqual(createdBetween(undefined, undefined), {});
    assert.deepEqual(createdBetween(after, undefined), { createdAt: { gte: new Date(after) } });
    const where = { ...createdBetween(after, before), ...afterPosition(position) };
    assert.deepEqual(where.createdAt, { gte: new Date(after), lt: new Date(before) });
    assert.deepEqual(where.AND?.[0], { createdAt: { lte: position.createdAt } });
  });
});

describe('signed identity headers', () => {
  const secret = 'a'.repeat(40);
  const identity = testIdentity();
  const request = { method: 'GET', url: '/api/v1/leads?limit=2' };

  test('verify what was signed', () => {
    assert.deepEqual(verifyIdentity(signIdentity(identity, request, secret), request, secret), identity);
  });

  test('refuse another secret, another URL or method, a stale signature, or tampered identity', () => {
    const headers = signIdentity(identity, request, secret);
    const refused = (fn: () => unknown) =>
      assert.throws(fn, (error: unknown) => error instanceof ApiError && error.code === 'unauthenticated');
    refused(() => verifyIdentity(headers, request, 'b'.repeat(40)));
    refused(() => verifyIdentity(headers, { ...request, url: '/api/v1/leads' }, secret));
    refused(() => verifyIdentity(headers, { ...request, method: 'DELETE' }, secret));
    refused(() => verifyIdentity(headers, request, secret, new Date(Date.now() + 10 * 60 * 1000)));
    const other = Buffer.from(JSON.stringify({ ...identity, org_id: 'org_other' })).toString('base64url');
    refused(() => verifyIdentity({ ...headers, 'x-voice-identity': other }, request, secret));
    refused(() => verifyIdentity({}, request, secret));
  });
});

/** A logger with the services' options whose lines are kept in memory. */
async function capturedLogger() {
  const { pino } = await import('pino');
  const { loggerOptions } = await import('../src/logger.js');
  const lines: string[] = [];
  return { lines, logger: pino(loggerOptions('test', 'info'), { write: (line: string) => lines.push(line) }) };
}

describe('logger', () => {
  test('authorization headers, keys and secrets never reach a log line', async () => {
    const { lines, logger } = await capturedLogger();
    logger.info(
      { req: { headers: { authorization: 'Bearer vk_live_secret' } }, api_key: 'vk_live_secret', webhook: { secret: 'whsec_x' } },
      'hello',
    );
    assert.equal(lines.length, 1);
    assert.equal(lines[0]?.includes('vk_live_secret'), false);
    assert.equal(lines[0]?.includes('whsec_x'), false);
    assert.match(lines[0] ?? '', /\[redacted\]/);
  });
});

describe('logger: secrets nested anywhere', () => {
  test('are blanked at any depth, in arrays and errors, in any case; the logged objects are not changed', async () => {
    const { lines, logger } = await capturedLogger();
    const nested = { provider: { config: { auth: { password: 'pw-deep' } } }, list: [{ name: 'a', secret: 'in-array' }] };
    const headers = { Authorization: 'Bearer mixed-case', accept: 'application/json' };
    const error = Object.assign(new Error('upstream refused'), { request: { headers: { authorization: 'Bearer in-error' } } });
    logger.info({ nested, headers, err: error }, 'call');
    logger.child({ reqId: 'req_1' }).info({ webhook: { secret: 'in-child-line' } }, 'child');
    const text = lines.join('\n');
    for (const secret of ['pw-deep', 'in-array', 'mixed-case', 'in-error', 'in-child-line'])
      assert.equal(text.includes(secret), false, secret);
    const [call, child] = lines.map((line) => JSON.parse(line));
    assert.equal(call.nested.list[0].name, 'a');
    assert.equal(call.headers.accept, 'application/json');
    assert.equal(call.err.message, 'upstream refused');
    assert.equal(call.err.type, 'Error');
    assert.match(call.err.stack, /upstream refused/);
    assert.equal(child.reqId, 'req_1');
    // What was logged is untouched: only copies were blanked.
    assert.equal(nested.provider.config.auth.password, 'pw-deep');
    assert.equal(nested.list[0]?.secret, 'in-array');
    assert.equal(headers.Authorization, 'Bearer mixed-case');
    assert.equal(error.request.headers.authorization, 'Bearer in-error');
  });

  test('a deep or circular object is logged, not walked forever', async () => {
    const { withoutSecrets } = await import('../src/logger.js');
    const loop: Record<string, unknown> = { name: 'loop' };
    loop.self = loop;
    assert.equal(withoutSecrets(loop), loop);
  });
});

describe('request logging', () => {
  test('one line per answered request, with its id, method, URL, status and duration; probes and keys are not logged', async () => {
    const { createHttpApp } = await import('../src/http.js');
    const { lines, logger } = await capturedLogger();
    const app = await createHttpApp({ name: 'test', logger, readiness: {} });
    app.get('/things/:id', async () => ({ ok: true }));
    await app.ready();
    const response = await app.inject({ method: 'GET', url: '/things/1?full=1', headers: { authorization: 'Bearer vk_live_secret' } });
    await app.inject({ method: 'GET', url: '/healthz' });
    await app.inject({ method: 'GET', url: '/nowhere' });
    await app.close();
    const requests = lines.map((line) => JSON.parse(line)).filter((line) => line.msg === 'request');
    assert.equal(requests.length, 2);
    const [first, missing] = requests;
    assert.equal(first.reqId, response.headers['request-id']);
    assert.deepEqual([first.method, first.url, first.status, typeof first.ms], ['GET', '/things/1?full=1', 200, 'number']);
    assert.equal(missing.status, 404);
    assert.equal(
      lines.some((line) => line.includes('vk_live_secret')),
      false,
    );
  });

  test('lines still buffered when the process exits are written out', async () => {
    const { spawnSync } = await import('node:child_process');
    const { fileURLToPath } = await import('node:url');
    const loggerModule = fileURLToPath(new URL('../src/logger.ts', import.meta.url));
    // 5,000 lines written in one go, then an immediate exit: the asynchronous destination still holds most.
    const script = `import { createLogger } from ${JSON.stringify(loggerModule)};
      const logger = createLogger('exit-test', 'info');
      for (let i = 0; i < 5000; i++) logger.info({ i }, 'line');
      process.exit(3);`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    assert.equal(child.status, 3, child.stderr);
    const written = child.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.equal(written.length, 5000);
    assert.equal(written.at(-1).i, 4999);
  });
});

describe('http app: every error is the envelope', () => {
  test('malformed JSON, a wrong type, an unknown field, an oversize body and an unknown route', async () => {
    const { createHttpApp } = await import('../src/http.js');
    const { createLogger } = await import('../src/logger.js');
    const app = await createHttpApp({ name: 'test', logger: createLogger('test', 'silent'), readiness: {}, bodyLimitBytes: 1024 });
    app.post(
      '/things',
      { schema: { body: z.strictObject({ name: z.string().max(10), count: z.number().int() }) } },
      async (request) => request.body,
    );
    await app.ready();
    const post = (payload: string) =>
      app.inject({ method: 'POST', url: '/things', headers: { 'content-type': 'application/json' }, payload });
    const cases: Array<[string, number, string, string | undefined]> = [
      ['{"name": ', 400, 'invalid_request', 'body'],
      ['{"name": "a", "count": "three"}', 400, 'invalid_request', 'count'],
      ['{"name": "a", "count": 1, "total": 5}', 400, 'invalid_request', 'total'],
      [JSON.stringify({ name: 'a', count: 1, pad: 'x'.repeat(2000) }), 413, 'payload_too_large', 'body'],
    ];
    for (const [payload, status, code, param] of cases) {
      const response = await post(payload);
      assert.equal(response.statusCode, status, payload.slice(0, 40));
      const body = response.json();
      assert.equal(body.error.code, code);
      assert.equal(body.error.param, param);
      assert.equal(body.error.request_id, response.headers['request-id']);
    }
    assert.deepEqual((await post('{"name": "a", "count": 1}')).json(), { name: 'a', count: 1 });
    const missing = await app.inject({ method: 'GET', url: '/nowhere' });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().error.code, 'not_found');
    await app.close();
  });

  test("router-level errors (a path that is not valid percent-encoding) are the envelope, not fastify's body", async () => {
    const { createHttpApp } = await import('../src/http.js');
    const { createLogger } = await import('../src/logger.js');
    const app = await createHttpApp({ name: 'test', logger: createLogger('test', 'silent'), readiness: {} });
    app.get('/things/:id', async () => ({ ok: true }));
    await app.ready();
    for (const url of ['/things/%ff', '/things/%E0%A4%A', '/%ff']) {
      const response = await app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 400, url);
      const { error } = response.json();
      assert.equal(error.code, 'invalid_request', url);
      assert.equal(error.request_id, response.headers['request-id'], url);
    }
    await app.close();
  });

  test('JSON nested 10,000 deep is 400 in the envelope, not a stack overflow; 64 levels are accepted', async () => {
    const { createHttpApp } = await import('../src/http.js');
    const { createLogger } = await import('../src/logger.js');
    const app = await createHttpApp({ name: 'test', logger: createLogger('test', 'silent'), readiness: {}, bodyLimitBytes: 1024 * 1024 });
    app.post('/things', { schema: { body: z.object({ data: z.unknown() }) } }, async () => ({ ok: true }));
    await app.ready();
    const nested = (depth: number) => `{"data":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    const post = (payload: string) =>
      app.inject({ method: 'POST', url: '/things', headers: { 'content-type': 'application/json' }, payload });
    const deep = await post(nested(10_000));
    assert.equal(deep.statusCode, 400);
    assert.deepEqual([deep.json().error.code, deep.json().error.param], ['invalid_request', 'data']);
    assert.match(deep.json().error.message, /nested deeper than 64 levels/);
    const objects = await post(`${'{"data":'.repeat(10_000)}1${'}'.repeat(10_000)}`);
    assert.equal(objects.statusCode, 400);
    assert.equal(objects.json().error.code, 'invalid_request');
    assert.equal((await post(nested(64))).statusCode, 200);
    assert.equal((await post(nested(65))).statusCode, 400);
    await app.close();
  });

  test('while the process drains, a request on a connection still open is 503 in the envelope with Retry-After', async () => {
    const { createHttpApp } = await import('../src/http.js');
    const { createLogger } = await import('../src/logger.js');
    const { connect } = await import('node:net');
    const app = await createHttpApp({ name: 'test', logger: createLogger('test', 'silent'), readiness: {} });
    let release = () => {};
    let started = () => {};
    const slowStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    app.get('/slow', async () => {
      started();
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return { ok: true };
    });
    app.get('/fast', async () => ({ ok: true }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    const socket = connect((app.server.address() as { port: number }).port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    // Resolves once `count` complete responses (each a JSON body) have arrived on the socket.
    const responses = (count: number) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (received.split('HTTP/1.1 ').length - 1 < count || !received.endsWith('}')) return;
          socket.off('data', check);
          resolve();
        };
        socket.on('data', check);
        check();
      });
    socket.write('GET /slow HTTP/1.1\r\nHost: test\r\n\r\n');
    await slowStarted;
    // Closing stops new connections; the open one stays until its request is answered.
    const closing = app.close();
    // Once the server stops listening, the busy connection is the only way in.
    while (app.server.listening) await new Promise((resolve) => setTimeout(resolve, 10));
    release();
    await responses(1);
    socket.write('GET /fast HTTP/1.1\r\nHost: test\r\n\r\n');
    await responses(2);
    await closing;
    const second = received.slice(received.lastIndexOf('HTTP/1.1 '));
    assert.match(second, /^HTTP\/1.1 503 /);
    assert.match(second, /\r\nretry-after: 1\r\n/i);
    assert.match(second, /\r\nconnection: close\r\n/i);
    const body = JSON.parse(second.slice(second.indexOf('\r\n\r\n') + 4));
    assert.equal(body.error.code, 'unavailable');
    socket.destroy();
  });

  test('/readyz names the failed dependency; its error text (hosts, ports) only with showDependencyErrors', async () => {
    const { createHttpApp } = await import('../src/http.js');
    const { lines, logger } = await capturedLogger();
    const readiness = {
      postgres: async () => {
        throw new Error('connect ECONNREFUSED 10.1.2.3:5432');
      },
      redis: async () => 'PONG',
    };
    const production = await createHttpApp({ name: 'test', logger, readiness });
    const hidden = await production.inject({ method: 'GET', url: '/readyz' });
    assert.equal(hidden.statusCode, 503);
    assert.deepEqual(hidden.json(), { status: 'not_ready', checks: { postgres: 'unavailable', redis: 'ok' } });
    assert.ok(
      lines.some((line) => line.includes('10.1.2.3:5432')),
      'the error text is logged server-side',
    );
    await production.close();
    const development = await createHttpApp({ name: 'test', logger, readiness, showDependencyErrors: true });
    const shown = await development.inject({ method: 'GET', url: '/readyz' });
    assert.equal(shown.json().checks.postgres, 'connect ECONNREFUSED 10.1.2.3:5432');
    await development.close();
  });
});

describe('client address', () => {
  test('is the peer unless proxies are trusted, then the address the nearest trusted proxy saw', async () => {
    const { createHttpApp } = await import('../src/http.js');
    const { createLogger } = await import('../src/logger.js');
    const addressSeen = async (trustProxyHops: number | undefined) => {
      const app = await createHttpApp({ name: 'test', logger: createLogger('test', 'silent'), readiness: {}, trustProxyHops });
      app.get('/ip', async (request) => ({ ip: request.ip }));
      await app.ready();
      const response = await app.inject({
        method: 'GET',
        url: '/ip',
        remoteAddress: '10.0.0.5',
        headers: { 'x-forwarded-for': '198.51.100.7, 203.0.113.9' },
      });
      await app.close();
      return response.json().ip;
    };
    // A client cannot choose its recorded address by sending X-Forwarded-For itself.
    assert.equal(await addressSeen(undefined), '10.0.0.5');
    assert.equal(await addressSeen(0), '10.0.0.5');
    assert.equal(await addressSeen(1), '203.0.113.9');
    assert.equal(await addressSeen(2), '198.51.100.7');
  });
});

describe('metrics', () => {
  test('/metrics serves request durations by route and status, and the process and event loop metrics', async () => {
    const { createHttpApp } = await import('../src/http.js');
    const { createLogger } = await import('../src/logger.js');
    const app = await createHttpApp({ name: 'test', logger: createLogger('test', 'silent'), readiness: {} });
    app.get('/things/:id', async () => ({ ok: true }));
    // Routes of an encapsulated plugin (as the gateway's proxies are) are counted too.
    await app.register(async (child) => {
      child.post('/inside', { onResponse: (_request, _reply, done) => done() }, async () => ({ ok: true }));
    });
    await app.ready();
    await app.inject({ method: 'GET', url: '/things/1' });
    await app.inject({ method: 'GET', url: '/things/2' });
    await app.inject({ method: 'POST', url: '/inside' });
    await app.inject({ method: 'GET', url: '/nowhere' });
    await app.inject({ method: 'GET', url: '/healthz' });
    // The event loop delay histogram fills as its timer fires.
    await new Promise((resolve) => setTimeout(resolve, 250));
    const response = await app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(response.statusCode, 200);
    assert.match(response.headers['content-type'] as string, /^text\/plain/);
    const text = response.body;
    // Every series carries the deployable's name as `service`.
    assert.match(text, /^http_request_duration_seconds_count\{service="test",method="GET",route="\/things\/:id",status="200"\} 2$/m);
    assert.match(text, /^http_request_duration_seconds_count\{service="test",method="POST",route="\/inside",status="200"\} 1$/m);
    assert.match(text, /^http_request_duration_seconds_count\{service="test",method="GET",route="unmatched",status="404"\} 1$/m);
    assert.doesNotMatch(text, /route="\/healthz"/, 'probes are not counted');
    assert.match(text, /^process_cpu_seconds_total\{service="test"\} \d/m);
    const lagMax = /^nodejs_eventloop_lag_max_seconds\{service="test"\} (\S+)$/m.exec(text);
    assert.ok(lagMax && Number(lagMax[1]) > 0, 'the event loop delay has been sampled');
    await app.close();
  });
});

describe('metrics read at scrape time', () => {
  test('a backlog read from its table at each scrape; a failed or hung read is NaN and counted, never a stale figure', async () => {
    const { Registry } = await import('prom-client');
    const { observeBacklog, scrapedValue } = await import('../src/metrics.js');
    const registry = new Registry();
    let answer: () => Promise<unknown> = async () => [{ waiting: 3, oldest_age: 42.5 }];
    const queries: string[] = [];
    observeBacklog(registry, {
      collector: 'things',
      database: {
        $queryRawUnsafe: <T>(query: string) => {
          queries.push(query);
          return answer() as Promise<T>;
        },
      },
      table: 'things',
      where: "status = 'waiting'",
      count: { name: 'things_waiting', help: 'Things waiting' },
      oldestAge: { name: 'things_oldest_waiting_age_seconds', help: 'Age of the oldest thing waiting' },
    });
    const first = await registry.metrics();
    assert.match(first, /^things_waiting 3$/m);
    assert.match(first, /^things_oldest_waiting_age_seconds 42.5$/m);
    assert.equal(queries.length, 1, 'one query serves both gauges of a scrape');
    assert.match(queries[0] as string, /FROM things WHERE status = 'waiting'$/);

    answer = async () => {
      throw new Error('database away');
    };
    // The first answer is reused for a second (a second scrape at once); wait for the next read.
    const failed = await eventually('the next scrape reads again', async () => {
      const text = await registry.metrics();
      // prom-client writes NaN as `Nan`, which Prometheus parses as NaN (case does not matter to it).
      if (!/^things_waiting Nan$/im.test(text)) throw new Error('still the reused answer');
      return text;
    });
    assert.match(failed, /^things_oldest_waiting_age_seconds Nan$/im);
    assert.match(failed, /^metrics_collect_errors_total\{collector="things"\} 1$/m);

    const hung = scrapedValue(registry, 'hung', () => new Promise<number>(() => {}), 20);
    assert.equal(await hung(), undefined, 'a read that does not answer within its bound gives up');
    assert.match(await registry.metrics(), /^metrics_collect_errors_total\{collector="hung"\} 1$/m);
  });
});

describe('NUL characters', () => {
  test('are found in values and keys, at any depth, and refused with the path as param', async () => {
    const { findNulCharacter } = await import('../src/text.js');
    assert.equal(findNulCharacter({ a: 'ok', b: ['x', { c: 'bad\u0000' }] }), 'b.1.c');
    assert.equal(findNulCharacter({ 'ke\u0000y': 1 }), 'ke\u0000y');
    assert.equal(findNulCharacter({ a: 'fine', n: 1, t: true, z: null }), undefined);
    assert.equal(findNulCharacter({ a: ['x', 'y\u0000'], 'b\u0000': 'z' }), 'a.1', 'the first in the input');
    const { InputTooDeepError } = await import('../src/text.js');
    let deep: unknown = 'end';
    for (let level = 0; level < 10_000; level++) deep = { inner: deep };
    assert.throws(() => findNulCharacter(deep), InputTooDeepError);
    const { createHttpApp } = await import('../src/http.js');
    const { createLogger } = await import('../src/logger.js');
    const app = await createHttpApp({ name: 'test', logger: createLogger('test', 'silent'), readiness: {} });
    app.post(
      '/things',
      { schema: { body: z.object({ name: z.string() }), querystring: z.object({ q: z.string().optional() }) } },
      async () => ({ ok: true }),
    );
    await app.ready();
    const body = await app.inject({ method: 'POST', url: '/things', payload: { name: 'a\u0000b' } });
    assert.equal(body.statusCode, 400);
    assert.deepEqual([body.json().error.code, body.json().error.param], ['invalid_request', 'name']);
    const query = await app.inject({ method: 'POST', url: '/things?q=%00', payload: { name: 'a' } });
    assert.equal(query.statusCode, 400);
    assert.equal(query.json().error.param, 'q');
    await app.close();
  });
});

describe('timestamps', () => {
  test('years Postgres cannot store, or before 1970, are refused by the shared schema', async () => {
    const { timestampSchema } = await import('@voice/proto');
    assert.equal(timestampSchema.safeParse('2026-11-25T10:00:00Z').success, true);
    assert.equal(timestampSchema.safeParse('0000-01-01T00:00:00Z').success, false);
    assert.equal(timestampSchema.safeParse('1969-12-31T23:59:59Z').success, false);
  });
});

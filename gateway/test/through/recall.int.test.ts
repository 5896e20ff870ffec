// Recall through the gateway: the knowledge base, POST /api/v1/llm-recall in both forms (with fake model
// providers that speak the real OpenAI and Anthropic protocols), and the marketing audit, public and keyed.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { VoiceApiError, VoiceClient } from '@voice/client';
import { type FakeBehaviour, type FakeProvider, knowingAnswers, startFakeAnthropic, startFakeOpenAi } from '@voice/kit/testing';
import {
  assertError,
  assertRateLimitHeaders,
  assertRecord,
  type Client,
  call,
  client,
  idemKey,
  type Json,
  missingId,
  ok,
  type Platform,
  rateHeaders,
  startPlatform,
  walk,
} from '../support/harness.js';

const page = `<!doctype html><html lang="en"><head>
<title>Acme Voice — AI receptionists</title>
<meta name="description" content="Acme Voice answers every call for clinics and books appointments, day and night.">
<meta name="viewport" content="width=device-width">
</head><body><h1>Never miss a call</h1></body></html>`;

/** A model that knows the brand, and answers knowledge questions from passage 1. */
const providerAnswers =
  (brand: string): FakeBehaviour =>
  (name, body) =>
    name === 'grounded_answer'
      ? { kind: 'json', value: { answerable: true, answer: 'Reset it from the login page [1].', cited: [1] } }
      : knowingAnswers(brand)(name, body);

describe('recall through the gateway', () => {
  let platform: Platform;
  let openai: FakeProvider;
  let anthropic: FakeProvider;
  let site: Server;
  let siteUrl: string;
  let org: { orgId: string; keyId: string; key: string };
  let api: Client;
  let readApi: Client;
  let other: Client;
  let documentId: string;

  before(async () => {
    openai = await startFakeOpenAi(providerAnswers('Acme Voice'));
    anthropic = await startFakeAnthropic(providerAnswers('Acme Voice'));
    site = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(page));
    site.listen(0, '127.0.0.1');
    await once(site, 'listening');
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
    platform = await startPlatform({
      recall: {
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: openai.baseUrl,
        ANTHROPIC_API_KEY: 'sk-ant-test',
        ANTHROPIC_BASE_URL: anthropic.baseUrl,
        PROVIDER_MAX_RETRIES: '0',
        PUBLIC_AUDIT_LIMIT: '3',
      },
    });
    // The local site stands in for the public internet: this one address is allowed, no other private one.
    platform.recall.deps.pageFetch.isAllowedAddress = (address) => address === '127.0.0.1';
    org = await platform.org({ quota: 5_000 });
    api = client(platform.url, org.key);
    const readKey = (await platform.gateway.admin({ kind: 'key.create', orgId: org.orgId, scope: 'read', monthlyQuota: 10_000 })) as {
      key: string;
    };
    readApi = client(platform.url, readKey.key);
    other = client(platform.url, (await platform.org()).key);
  });
  after(async () => {
    await platform?.close();
    await openai?.close();
    await anthropic?.close();
    site?.closeAllConnections();
    site?.close();
  });

  test('documents: add with an Idempotency-Key twice gives one document and the same response; another body is 409', async () => {
    const body = {
      title: 'Account help',
      text: 'To reset your password, open the login page and choose "Forgot password". We email a link that works for one hour.',
      source_url: 'https://help.example.com/password',
    };
    const key = idemKey('doc');
    const first = ok(await api.post('/api/v1/knowledge/documents', body, { idempotencyKey: key }), 201);
    assertRecord(first, 'doc', 'document');
    assert.equal(first.title, body.title);
    assert.equal(first.text, body.text);
    assert.equal(first.characters, body.text.length);
    assert.ok(first.passage_count >= 1);
    documentId = first.id;
    const again = await api.post('/api/v1/knowledge/documents', body, { idempotencyKey: key });
    assert.equal(again.status, 201, again.text);
    assert.deepEqual(again.body, first, 'the replay is the first response');
    assertError(
      await api.post('/api/v1/knowledge/documents', { ...body, title: 'Another' }, { idempotencyKey: key }),
      409,
      'idempotency_conflict',
    );
    const list = ok(await api.get('/api/v1/knowledge/documents'));
    assert.deepEqual(
      list.data.map((item: { id: string }) => item.id),
      [documentId],
      'one document for two requests with one key',
    );
  });

  test('documents: list (without text), get (with text), delete', async () => {
    const list = ok(await api.get('/api/v1/knowledge/documents'));
    const item = list.data.find((d: { id: string }) => d.id === documentId);
    assertRecord(item, 'doc', 'document');
    assert.equal(item.text, undefined, 'lists leave out the text');
    const got = ok(await api.get(`/api/v1/knowledge/documents/${documentId}`));
    assert.match(got.text, /reset your password/);

    const doomed = ok(await api.post('/api/v1/knowledge/documents', { title: 'Doomed', text: 'Zanzibar ferries leave at noon.' }), 201);
    assert.deepEqual(ok(await api.delete(`/api/v1/knowledge/documents/${doomed.id}`)), {
      id: doomed.id,
      object: 'document',
      deleted: true,
    });
    assertError(await api.get(`/api/v1/knowledge/documents/${doomed.id}`), 404, 'not_found');
    assert.deepEqual(ok(await api.post('/api/v1/llm-recall', { query: 'Zanzibar ferries' })).results, [], 'its passages are gone');
  });

  test('llm-recall {query} finds the document, answers from it, and api is the monthly count the gateway counted', async () => {
    const response = await api.post('/api/v1/llm-recall', { query: 'how do I reset my password?' });
    const body = ok(response);
    assert.equal(body.ok, true);
    assert.equal(body.query, 'how do I reset my password?');
    assert.ok(body.results.length >= 1);
    const [top] = body.results;
    assert.equal(top.document_id, documentId);
    assert.match(top.passage_id, /^psg_/);
    assert.equal(top.title, 'Account help');
    assert.equal(top.source_url, 'https://help.example.com/password');
    assert.match(top.snippet, /<b>/);
    assert.ok(top.score > 0);
    assert.equal(body.answer, 'Reset it from the login page [1].');
    assert.deepEqual(
      body.citations.map((c: Json) => [c.ref, c.document_id]),
      [[1, documentId]],
    );
    assert.equal(body.answered_by.provider, 'openai');

    const { limit, remaining } = rateHeaders(response);
    assert.deepEqual(body.api, { monthly_used: limit - remaining, monthly_quota: limit });
    assert.equal(limit, 5_000);
    // The gateway's own report agrees: this usage call is one more.
    const usage = ok(await api.get('/api/v1/usage'));
    assert.equal(usage.monthly.quota, 5_000);
    assert.equal(usage.monthly.used, body.api.monthly_used + 1);
    const next = ok(await api.post('/api/v1/llm-recall', { query: 'password' }));
    assert.equal(next.api.monthly_used, body.api.monthly_used + 2);
  });

  test('llm-recall {brand, url} probes both fake providers and returns the seed shape', async () => {
    const response = await api.post('/api/v1/llm-recall', { brand: 'Acme Voice', url: 'https://acmevoice.example' });
    const body = ok(response);
    assert.equal(body.ok, true);
    assert.equal(body.brand, 'Acme Voice');
    assert.ok(Number.isInteger(body.score) && body.score >= 80, `score ${body.score}`);
    assert.equal(body.verdict, 'prominent');
    assert.equal(typeof body.zinger, 'string');
    assert.equal(body.partial, false);
    assert.deepEqual(body.probes.map((probe: Json) => probe.provider).sort(), ['anthropic', 'openai']);
    for (const probe of body.probes) {
      assert.equal(probe.knows, true);
      assert.equal(probe.status, 'ok');
      assert.ok(probe.signal_score >= 80);
      assert.equal(typeof probe.model, 'string');
      assert.ok(Number.isInteger(probe.latency_ms));
      assert.equal(probe.error, null);
      assert.equal(probe.said.category.named, true);
    }
    assert.ok(body.recommendations.length >= 1);
    for (const recommendation of body.recommendations) {
      assert.deepEqual(Object.keys(recommendation).sort(), ['body', 'severity', 'title']);
    }
    const { limit, remaining } = rateHeaders(response);
    assert.deepEqual(body.api, { monthly_used: limit - remaining, monthly_quota: limit });
  });

  test('the public marketing audit works without a key through the gateway, rate-limited per client address', async () => {
    const audit = (forwardedFor: string) =>
      call(platform.url, 'POST', '/api/public/marketing-audit', { body: { url: siteUrl }, headers: { 'x-forwarded-for': forwardedFor } });
    const first = await audit('198.51.100.7');
    const body = ok(first);
    assert.equal(body.ok, true);
    assert.equal(body.status, 200);
    assert.ok(body.checks.some((check: Json) => check.id === 'title' && check.passed === true));
    assert.match(body.notice, /coming soon/);
    assert.equal(first.headers.get('x-ratelimit-limit'), '3');
    assert.equal(first.headers.get('x-ratelimit-remaining'), '2');
    // A client cannot pick its address: the gateway writes the one it saw.
    assert.equal((await audit('198.51.100.8')).status, 200);
    assert.equal((await audit('198.51.100.9')).status, 200);
    const refused = await audit('198.51.100.10');
    assertError(refused, 429, 'rate_limited');
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
  });

  test('POST /api/v1/marketing-audit with a key is 501 coming_soon', async () => {
    assertError(await api.post('/api/v1/marketing-audit', { url: siteUrl }), 501, 'coming_soon');
    assertError(await readApi.post('/api/v1/marketing-audit', { url: siteUrl }), 501, 'coming_soon');
    assertError(await call(platform.url, 'POST', '/api/v1/marketing-audit', { body: { url: siteUrl } }), 401, 'missing');
  });

  test('cursor pagination walks documents over three pages with no duplicate and no gap', async () => {
    const fresh = client(platform.url, (await platform.org()).key);
    const created: string[] = [];
    for (let n = 0; n < 7; n++) {
      created.push(ok(await fresh.post('/api/v1/knowledge/documents', { title: `Doc ${n}`, text: `Paragraph number ${n}.` }), 201).id);
    }
    const walked = await walk(fresh, '/api/v1/knowledge/documents', 3);
    assert.equal(walked.pages, 3);
    assert.deepEqual(walked.ids, [...created].reverse());
  });

  test('every success carries X-RateLimit-* and Request-Id; Remaining drops by one per call', async () => {
    const metered = await platform.org({ quota: 30 });
    const m = client(platform.url, metered.key);
    await assertRateLimitHeaders(
      [
        () => m.get('/api/v1/knowledge/documents'),
        () => m.post('/api/v1/knowledge/documents', { title: 'Metered', text: 'Counting calls.' }),
        () => m.post('/api/v1/llm-recall', { query: 'counting' }),
        () => m.get('/api/v1/knowledge/documents'),
      ],
      30,
    );
  });

  test('a read key gets 403 forbidden_scope on every write route and succeeds on reads (recall is a read)', async () => {
    const writes: Array<[string, string, Json]> = [
      ['POST', '/api/v1/knowledge/documents', { title: 'Nope', text: 'Nope' }],
      ['DELETE', `/api/v1/knowledge/documents/${documentId}`, undefined],
    ];
    for (const [method, path, body] of writes) {
      assertError(await readApi.call(method, path, body === undefined ? {} : { body }), 403, 'forbidden_scope');
    }
    ok(await readApi.get('/api/v1/knowledge/documents'));
    ok(await readApi.get(`/api/v1/knowledge/documents/${documentId}`));
    assert.equal(ok(await readApi.post('/api/v1/llm-recall', { query: 'password' })).results[0].document_id, documentId);
    ok(await readApi.post('/api/v1/llm-recall', { brand: 'Acme Voice', url: 'https://acmevoice.example' }));
  });

  test("another organization gets 404 not_found for the first one's documents, empty lists and no recall hits", async () => {
    assertError(await other.get(`/api/v1/knowledge/documents/${documentId}`), 404, 'not_found');
    assertError(await other.delete(`/api/v1/knowledge/documents/${documentId}`), 404, 'not_found');
    assert.deepEqual(ok(await other.get('/api/v1/knowledge/documents')), { data: [], has_more: false, next_cursor: null });
    const recalled = ok(await other.post('/api/v1/llm-recall', { query: 'reset password' }));
    assert.deepEqual(recalled.results, []);
    assert.equal(recalled.answer, null);
    ok(await api.get(`/api/v1/knowledge/documents/${documentId}`));
  });

  test('bad input is a 4xx in the envelope, never a 500', async () => {
    assertError(await api.call('POST', '/api/v1/knowledge/documents', { raw: '{"title":' }), 400, 'invalid_request');
    assertError(await api.call('POST', '/api/v1/llm-recall', { raw: 'query=password' }), 400, 'invalid_request');
    assertError(await api.post('/api/v1/knowledge/documents', { title: 5, text: 'x' }), 400, 'invalid_request', 'title');
    assertError(
      await api.post('/api/v1/knowledge/documents', { title: 'x', text: 'y', source_url: 'ftp://x' }),
      400,
      'invalid_request',
      'source_url',
    );
    assertError(
      await api.post('/api/v1/knowledge/documents', { title: 'Long', text: 'x'.repeat(200_001) }),
      400,
      'invalid_request',
      'text',
    );
    assertError(await api.post('/api/v1/llm-recall', {}), 400, 'invalid_request', 'query');
    assertError(await api.post('/api/v1/llm-recall', { query: 'x', brand: 'Acme' }), 400, 'invalid_request', 'brand');
    assertError(await api.post('/api/v1/llm-recall', { brand: 'Acme' }), 400, 'invalid_request', 'url');
    assertError(await api.post('/api/v1/llm-recall', { query: 42 }), 400, 'invalid_request', 'query');
    assertError(await api.post('/api/v1/llm-recall', { query: 'x', limit: 500 }), 400, 'invalid_request', 'limit');
    assertError(
      await call(platform.url, 'POST', '/api/public/marketing-audit', { body: { url: 'file:///etc/passwd' } }),
      400,
      'invalid_request',
      'url',
    );
    assertError(await api.get(`/api/v1/knowledge/documents/${missingId('doc')}`), 404, 'not_found');
    assertError(await api.delete(`/api/v1/knowledge/documents/${missingId('doc')}`), 404, 'not_found');
    assertError(await api.get('/api/v1/knowledge/documents/nope'), 400, 'invalid_request', 'id');
    assertError(await api.get('/api/v1/knowledge/documents?cursor=bm90LWEtY3Vyc29y'), 400, 'invalid_cursor');
    assertError(await api.get('/api/v1/knowledge/documents?limit=abc'), 400, 'invalid_request', 'limit');
    // README: a body over 1 MB is 413.
    assertError(await api.post('/api/v1/knowledge/documents', { title: 'Huge', text: 'x'.repeat(1_100_000) }), 413, 'payload_too_large');
  });

  test('@voice/client: documents, recall and the brand score on the real stack; {} is refused as it is typed', async () => {
    const own = await platform.org();
    const voice = new VoiceClient({ apiKey: own.key, baseUrl: platform.url });
    const document = await voice.documents.create({
      title: 'Opening hours',
      text: 'The office opens at nine and closes at five, Monday to Friday.',
    });
    const listed: string[] = [];
    for await (const item of voice.documents.list()) listed.push(item.id);
    assert.deepEqual(listed, [document.id]);
    assert.match((await voice.documents.get(document.id)).text, /opens at nine/);

    const recalled = await voice.recall({ query: 'when does the office open?' });
    assert.ok('results' in recalled, 'the recall form answers with passages');
    assert.equal(recalled.results[0]?.document_id, document.id);
    const scored = await voice.recall({ brand: 'Acme Voice', url: 'https://acmevoice.example' });
    assert.ok('score' in scored, 'the brand form answers with a score');
    assert.equal(scored.verdict, 'prominent');

    const refused = await voice.recall({} as never).catch((error: unknown) => error);
    assert.ok(refused instanceof VoiceApiError);
    assert.equal(refused.status, 400);
    assert.equal(refused.code, 'invalid_request');
    assert.equal(refused.param, 'query');
    assert.deepEqual(await voice.documents.delete(document.id), { id: document.id, object: 'document', deleted: true });
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { HttpApp } from '@voice/kit';
import {
  eventually,
  type FakeProvider,
  gatewayHeaders,
  knowingAnswers,
  startFakeAnthropic,
  startFakeOpenAi,
  testIdentity,
  unawareAnswers,
} from '@voice/kit/testing';
import { brandScoreResponseSchema, type EventEnvelope, recallRpc } from '@voice/proto';
import type { RecallDeps } from '../src/deps.js';
import { fakeProviderEnv, type Harness, startProviderlessApp, startRecall } from './support/harness.js';

const seedKeys = ['ok', 'brand', 'score', 'verdict', 'zinger', 'probes', 'recommendations', 'api'];

describe('brand score over fake OpenAI and Anthropic servers', () => {
  let h: Harness;
  let deps: RecallDeps;
  let app: HttpApp;
  let openai: FakeProvider;
  let anthropic: FakeProvider;
  const events: EventEnvelope[] = [];
  const identity = testIdentity({ scope: 'read', monthly_used: 7, monthly_quota: 100 });

  const score = (body: Record<string, unknown>, who = identity) =>
    app.inject({ method: 'POST', url: '/api/v1/llm-recall', headers: gatewayHeaders(who, 'POST', '/api/v1/llm-recall'), payload: body });

  before(async () => {
    openai = await startFakeOpenAi(knowingAnswers('Acme Voice'));
    anthropic = await startFakeAnthropic(knowingAnswers('Acme Voice'));
    // The hanging provider's bound, far above an answer's time on a loaded machine: timeouts catch hangs only.
    h = await startRecall({ ...fakeProviderEnv(openai, anthropic), PROVIDER_TIMEOUT_MS: '10000', BRAND_PAGE_CHECK: 'false' });
    ({ deps, app } = h);
    await deps.bus.consume({ durable: 'test-brand-scored', types: ['recall.brand_scored'] }, async (event) => {
      events.push(event);
    });
  });

  after(async () => {
    await h?.close();
    await openai?.close();
    await anthropic?.close();
  });

  const reset = () => {
    openai.behaviour = knowingAnswers('Acme Voice');
    anthropic.behaviour = knowingAnswers('Acme Voice');
    openai.requests.length = 0;
    anthropic.requests.length = 0;
  };

  test('both providers know the brand: the seed shape, a high score and the quota figures from the gateway', async () => {
    reset();
    const response = await score({ brand: 'Acme Voice', url: 'https://acmevoice.example/' });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    brandScoreResponseSchema.parse(body);
    for (const key of seedKeys) assert.ok(key in body, `missing ${key}`);
    assert.equal(body.ok, true);
    assert.equal(body.brand, 'Acme Voice');
    // Each provider: 20 + 20 × 0.9 (recognition) + 15 + 10 + 5 (description) + 30 (named first) = 98.
    assert.equal(body.score, 98);
    assert.equal(body.verdict, 'prominent');
    assert.equal(body.partial, false);
    assert.deepEqual(body.api, { monthly_used: 7, monthly_quota: 100 });
    assert.deepEqual(
      body.probes.map((probe: { provider: string; model: string; knows: boolean; signal_score: number; status: string; error: null }) => [
        probe.provider,
        probe.model,
        probe.knows,
        probe.signal_score,
        probe.status,
        probe.error,
      ]),
      [
        ['openai', 'gpt-test', true, 98, 'ok', null],
        ['anthropic', 'claude-test', true, 98, 'ok', null],
      ],
    );
    assert.equal(body.probes[0].said.category.rank, 1);
    assert.match(body.zinger, /^Top of mind: every model recognises Acme Voice/);
    assert.ok(body.recommendations.length >= 1);

    // The adapters used each API's structured output: OpenAI json_schema (strict), Anthropic a forced tool.
    const openaiNames = openai.requests.map(
      (request) => (request.body.response_format as { json_schema: { name: string; strict: boolean } }).json_schema,
    );
    assert.deepEqual(openaiNames.map((schema) => schema.name).sort(), ['brand_description', 'brand_recognition', 'category_recall']);
    assert.ok(openaiNames.every((schema) => schema.strict === true));
    assert.equal(openai.requests[0]?.headers.authorization, 'Bearer sk-test');
    const toolChoices = anthropic.requests.map((request) => request.body.tool_choice as { type: string; name: string });
    assert.deepEqual(toolChoices.map((choice) => choice.name).sort(), ['brand_description', 'brand_recognition', 'category_recall']);
    assert.ok(toolChoices.every((choice) => choice.type === 'tool'));
    // This SDK release sends the key as a bearer token; older ones used x-api-key. Either proves the key was sent.
    const anthropicHeaders = anthropic.requests[0]?.headers;
    assert.ok(anthropicHeaders?.authorization === 'Bearer sk-ant-test' || anthropicHeaders?.['x-api-key'] === 'sk-ant-test');
  });

  test('the providers are probed in parallel: OpenAI answers only after Anthropic has every question', async () => {
    reset();
    let allArrived: () => void = () => {};
    const anthropicHasAll = new Promise<void>((resolve) => {
      allArrived = resolve;
    });
    const knowing = knowingAnswers('Acme Voice');
    anthropic.behaviour = (name, body) => {
      if (anthropic.requests.length >= 3) allArrived();
      return knowing(name, body);
    };
    openai.behaviour = (name, body) => ({ ...knowing(name, body), after: anthropicHasAll }) as ReturnType<typeof knowing>;
    const response = await score({ brand: 'Acme Voice', url: 'https://acmevoice.example' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(
      response.json().probes.map((probe: { status: string }) => probe.status),
      ['ok', 'ok'],
    );
  });

  test('one provider failing (500) gives a partial result that says so', async () => {
    reset();
    anthropic.behaviour = () => ({ kind: 'status', status: 500 });
    const response = await score({ brand: 'Acme Voice', url: 'https://acmevoice.example' });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.partial, true);
    assert.equal(body.score, 98);
    const failed = body.probes[1];
    assert.equal(failed.provider, 'anthropic');
    assert.equal(failed.status, 'failed');
    assert.equal(failed.knows, false);
    assert.equal(failed.signal_score, 0);
    assert.match(failed.error, /anthropic answered 500/);
    assert.ok(body.recommendations.some((recommendation: { title: string }) => recommendation.title === 'Re-run when Anthropic answers'));
    assert.match(body.zinger, /the other model did not answer/);
  });

  test('a provider that never answers is cut off at the timeout and marked failed', async () => {
    reset();
    openai.behaviour = () => ({ kind: 'hang' });
    const body = (await score({ brand: 'Acme Voice', url: 'https://acmevoice.example' })).json();
    assert.equal(body.partial, true);
    assert.equal(body.probes[0].status, 'failed');
    assert.match(body.probes[0].error, /did not answer in time/);
    assert.equal(body.probes[1].status, 'ok');
  });

  test('prose and broken JSON become probes with knows: false and an error, not a 500', async () => {
    reset();
    openai.behaviour = () => ({ kind: 'text', text: 'Sure! Acme Voice is a great company that I know well.' });
    anthropic.behaviour = unawareAnswers();
    const response = await score({ brand: 'Acme Voice', url: 'https://acmevoice.example' });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.probes[0].knows, false);
    assert.equal(body.probes[0].status, 'failed');
    assert.match(body.probes[0].error, /not JSON/);
    // Anthropic does not know it: 0 recognition, 0 description, not named → 0.
    assert.equal(body.probes[1].signal_score, 0);
    assert.equal(body.score, 0);
    assert.equal(body.verdict, 'invisible');
    assert.equal(body.recommendations[0].severity, 'critical');

    openai.behaviour = (name, request) =>
      name === 'brand_recognition'
        ? { kind: 'text', text: '{"knows": true, "confidence": 0.8, "summary": "Acme' }
        : knowingAnswers('Acme Voice')(name, request);
    const mixed = (await score({ brand: 'Acme Voice', url: 'https://acmevoice.example' })).json();
    assert.equal(mixed.probes[0].status, 'partial');
    assert.match(mixed.probes[0].error, /brand_recognition is not JSON/);
    // Without recognition: description halved (30 / 2) + named first (30) = 45; knows because it named the brand.
    assert.equal(mixed.probes[0].signal_score, 45);
    assert.equal(mixed.probes[0].knows, true);
  });

  test('rate limiting (429) and schema-violating answers are reported per provider', async () => {
    reset();
    openai.behaviour = () => ({ kind: 'status', status: 429 });
    anthropic.behaviour = () => ({ kind: 'json', value: { knows: 'maybe' } });
    const response = await score({ brand: 'Acme Voice', url: 'https://acmevoice.example' });
    assert.equal(response.statusCode, 502);
    const error = response.json().error;
    assert.equal(error.code, 'upstream_failed');
    assert.match(error.message, /openai: .*429/);
    assert.match(error.message, /anthropic: .*does not match its schema/);
  });

  test('both providers failing is 502 upstream_failed', async () => {
    reset();
    openai.behaviour = () => ({ kind: 'status', status: 503 });
    anthropic.behaviour = () => ({ kind: 'status', status: 500 });
    const response = await score({ brand: 'Acme Voice', url: 'https://acmevoice.example' });
    assert.equal(response.statusCode, 502);
    assert.equal(response.json().error.code, 'upstream_failed');
  });

  test('validation: brand length, http(s) only, both fields of the form', async () => {
    reset();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ brand: 'x'.repeat(201), url: 'https://a.example' }, 'brand'],
      [{ brand: '', url: 'https://a.example' }, 'brand'],
      [{ brand: 'Acme', url: 'ftp://a.example' }, 'url'],
      [{ brand: 'Acme', url: 'javascript:alert(1)' }, 'url'],
      [{ brand: 'Acme' }, 'url'],
      [{ url: 'https://a.example' }, 'brand'],
      [{ brand: 'Acme', url: 'https://a.example', query: 'x' }, 'brand'],
    ];
    for (const [body, param] of cases) {
      const response = await score(body);
      assert.equal(response.statusCode, 400, JSON.stringify(body));
      assert.equal(response.json().error.param, param, JSON.stringify(body));
    }
    assert.equal(openai.requests.length, 0);
  });

  test('NATS brand score answers the same shape and a brand_scored event is published', async () => {
    reset();
    const result = await deps.bus.call(
      recallRpc.brandScore,
      identity,
      { brand: 'Acme Voice', url: 'https://acmevoice.example' },
      { timeoutMs: 30_000 },
    );
    assert.equal(result.score, 98);
    assert.deepEqual(result.api, { monthly_used: 7, monthly_quota: 100 });
    const event = await eventually('the brand_scored event', () => events.at(-1));
    assert.equal(event?.type, 'recall.brand_scored');
    assert.equal(event?.org_id, identity.org_id);
    assert.equal(event?.data.brand, 'Acme Voice');
  });

  test('each score is kept for its organization and listed newest first over NATS (svc.recall.brand_scores.list)', async () => {
    reset();
    const mine = testIdentity({ scope: 'read' });
    const theirs = testIdentity({ scope: 'read' });
    await deps.bus.call(recallRpc.brandScore, mine, { brand: 'Acme Voice', url: 'https://acmevoice.example' }, { timeoutMs: 30_000 });
    anthropic.behaviour = unawareAnswers();
    openai.behaviour = unawareAnswers();
    await deps.bus.call(recallRpc.brandScore, mine, { brand: 'Nobody Co', url: 'https://nobody.example' }, { timeoutMs: 30_000 });
    await deps.bus.call(recallRpc.brandScore, theirs, { brand: 'Theirs', url: 'https://theirs.example' }, { timeoutMs: 30_000 });
    const page = await deps.bus.call(recallRpc.listBrandScores, mine, { limit: 1 });
    assert.deepEqual(
      page.data.map((score) => [score.brand, score.url, score.verdict]),
      [['Nobody Co', 'https://nobody.example', 'invisible']],
    );
    assert.ok(page.next_cursor);
    const next = await deps.bus.call(recallRpc.listBrandScores, mine, { limit: 10, cursor: page.next_cursor });
    assert.deepEqual(
      next.data.map((score) => [score.brand, score.score]),
      [['Acme Voice', 98]],
    );
    assert.equal(next.next_cursor, null);
    const other = await deps.bus.call(recallRpc.listBrandScores, theirs, { limit: 10 });
    assert.deepEqual(
      other.data.map((score) => score.brand),
      ['Theirs'],
    );
  });

  test('without a provider configured the brand score is 503 naming the variables to set', async (t) => {
    const { app: bareApp, close } = await startProviderlessApp(h);
    t.after(close);
    const response = await bareApp.inject({
      method: 'POST',
      url: '/api/v1/llm-recall',
      headers: gatewayHeaders(identity, 'POST', '/api/v1/llm-recall'),
      payload: { brand: 'Acme', url: 'https://acme.example' },
    });
    assert.equal(response.statusCode, 503);
    assert.equal(response.json().error.code, 'unavailable');
    assert.match(response.json().error.message, /OPENAI_API_KEY.*ANTHROPIC_API_KEY/);
  });
});

// Test mode (issue 32) in the recall service: a test twin's brand score and recall answer come from the
// deterministic simulator, never from a model provider; a live organization's still ask the providers.
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
} from '@voice/kit/testing';
import {
  type BrandScoreResponse,
  brandScoreResponseSchema,
  brandVerdicts,
  type EventEnvelope,
  type Identity,
  type RecallResponse,
  recallResponseSchema,
  recallRpc,
  testTwinOf,
} from '@voice/proto';
import type { RecallDeps } from '../src/deps.js';
import { simulatorModel } from '../src/domain/test-mode-simulator.js';
import { fakeProviderEnv, type Harness, startProviderlessApp, startRecall } from './support/harness.js';

describe('recall in test mode', () => {
  let h: Harness;
  let deps: RecallDeps;
  let app: HttpApp;
  let openai: FakeProvider;
  let anthropic: FakeProvider;
  /** How often the brand's page was read: the live path reads it, the simulator must not. */
  let pageReads = 0;
  const events: EventEnvelope<'recall.brand_scored'>[] = [];
  const live = testIdentity({ scope: 'read-write', monthly_used: 3, monthly_quota: 100 });
  const twin: Identity = { ...live, org_id: testTwinOf(live.org_id) };

  const post = (identity: Identity, url: string, payload: Record<string, unknown>) =>
    app.inject({ method: 'POST', url, headers: gatewayHeaders(identity, 'POST', url), payload });
  const score = async (identity: Identity, brand: string, url: string) => {
    const response = await post(identity, '/api/v1/llm-recall', { brand, url });
    assert.equal(response.statusCode, 200, response.body);
    return brandScoreResponseSchema.parse(response.json());
  };
  const ask = async (identity: Identity, query: string) => {
    const response = await post(identity, '/api/v1/llm-recall', { query });
    assert.equal(response.statusCode, 200, response.body);
    return recallResponseSchema.parse(response.json());
  };
  const providerRequests = () => openai.requests.length + anthropic.requests.length;

  before(async () => {
    const knowing = knowingAnswers('Northwind Dental');
    // Live recall answers cite the first passage; the brand prompts get the knowing answers.
    const behaviour = (name: string, body: Record<string, unknown>) =>
      name === 'grounded_answer'
        ? ({ kind: 'json', value: { answerable: true, answer: 'Open weekdays from 8am [1].', cited: [1] } } as const)
        : knowing(name, body);
    openai = await startFakeOpenAi(behaviour);
    anthropic = await startFakeAnthropic(behaviour);
    h = await startRecall({ ...fakeProviderEnv(openai, anthropic), PROVIDER_TIMEOUT_MS: '10000' }, (prepared) => {
      // The page check is on; a local stand-in counts its reads (the real fetcher refuses local addresses).
      prepared.brandScore.checkPage = async (url) => {
        pageReads += 1;
        return {
          reachable: true,
          error: null,
          https: url.startsWith('https:'),
          status: 200,
          title: 'Northwind Dental',
          metaDescription: 'Family dentistry in Seattle.',
          h1Count: 1,
          lang: 'en',
          hasViewport: true,
          canonical: url,
          openGraph: { title: true, description: true, image: true },
          noindex: false,
          hasJsonLd: true,
          hasOrganizationJsonLd: true,
        };
      };
    });
    ({ deps, app } = h);
    await deps.bus.consume({ durable: 'test-mode-brand-scored', types: ['recall.brand_scored'] }, async (event) => {
      events.push(event);
    });
  });

  after(async () => {
    await h?.close();
    await openai?.close();
    await anthropic?.close();
  });

  test('a test twin’s brand score asks no provider, reads no page, is the same twice and says it is simulated', async () => {
    const before = { requests: providerRequests(), pages: pageReads };
    const first = await score(twin, 'Northwind Dental', 'https://northwind-dental.example/');
    const second = await score(twin, 'Northwind Dental', 'https://northwind-dental.example/');
    // Over NATS too, by the same handler.
    const overNats = await deps.bus.call(recallRpc.brandScore, twin, {
      brand: 'Northwind Dental',
      url: 'https://northwind-dental.example/',
    });
    assert.equal(providerRequests(), before.requests, 'no request reached either provider');
    assert.equal(pageReads, before.pages, 'the brand page was not read');

    assert.deepEqual(second, first);
    assert.deepEqual(overNats, first);
    // The same brand written differently (case, a legal suffix, www.) is the same brand to the simulator.
    const variant = await score(twin, 'NORTHWIND DENTAL, Inc.', 'https://www.northwind-dental.example/');
    assert.deepEqual([variant.score, variant.verdict], [first.score, first.verdict]);

    // The live shape, marked as a simulation wherever a person reads it.
    assert.deepEqual(
      first.probes.map((probe) => [probe.provider, probe.model, probe.status, probe.latency_ms, probe.error]),
      [
        ['openai', simulatorModel, 'ok', 0, null],
        ['anthropic', simulatorModel, 'ok', 0, null],
      ],
    );
    assert.match(first.zinger, /^Test mode \(simulated\): /);
    assert.equal(first.recommendations.at(-1)?.title, 'Simulated in test mode');
    assert.equal(first.partial, false);
    assert.deepEqual(first.api, { monthly_used: 3, monthly_quota: 100 });
    // The score is the rubric's mean of the two probes, as in live mode.
    const mean = Math.round(first.probes.reduce((sum, probe) => sum + probe.signal_score, 0) / first.probes.length);
    assert.equal(first.score, mean);
    for (const probe of first.probes) {
      if (probe.said.recognition?.knows) assert.match(probe.said.recognition.summary, /^Test-mode simulation/);
    }
  });

  test('different brands get different, realistic results: the verdicts spread over the bands', async () => {
    const brands = ['Acme Plumbing', 'Bluebird Bakery', 'Cedar Law', 'Delta Fitness', 'Evergreen Dental', 'Fjord Coffee'];
    const results: BrandScoreResponse[] = [];
    for (const brand of brands) {
      results.push(await score(twin, brand, `https://${brand.toLowerCase().replace(' ', '-')}.example/`));
    }
    const verdicts = new Set(results.map((result) => result.verdict));
    assert.ok(verdicts.size >= 2, `one verdict for six brands: ${[...verdicts].join(', ')}`);
    for (const result of results) {
      assert.ok(brandVerdicts.includes(result.verdict));
      assert.ok(result.recommendations.length >= 2, 'a finding of the rubric, and the simulation notice');
      for (const probe of result.probes) assert.ok(probe.said.category && probe.said.category.brands.length >= 3);
    }
  });

  test('the twin’s brand_scored event is livemode false and kept for the twin; a live organization’s asks the providers', async () => {
    const before = { requests: providerRequests(), pages: pageReads };
    const simulated = await score(twin, 'Fabrikam Heating', 'https://fabrikam-heating.example/');
    assert.equal(providerRequests(), before.requests);
    const real = await score(live, 'Northwind Dental', 'https://northwind-dental.example/');
    assert.equal(openai.requests.length > 0 && anthropic.requests.length > 0, true);
    assert.equal(providerRequests(), before.requests + 6, 'three prompts to each provider');
    assert.equal(pageReads, before.pages + 1);
    assert.deepEqual(
      real.probes.map((probe) => probe.model),
      ['gpt-test', 'claude-test'],
    );
    assert.doesNotMatch(real.zinger, /simulated/);

    const [twinEvent, liveEvent] = await eventually('both brand_scored events', () => {
      const twinEvent = events.find((event) => event.org_id === twin.org_id && event.data.brand === 'Fabrikam Heating');
      const liveEvent = events.find((event) => event.org_id === live.org_id);
      return twinEvent && liveEvent ? ([twinEvent, liveEvent] as const) : undefined;
    });
    assert.equal(twinEvent.livemode, false);
    assert.equal(twinEvent.data.score, simulated.score);
    assert.deepEqual(
      twinEvent.data.providers.map((provider) => provider.model),
      [simulatorModel, simulatorModel],
    );
    assert.equal(liveEvent.livemode, true);

    // Each organization's history is its own.
    const twinHistory = await deps.bus.call(recallRpc.listBrandScores, twin, {});
    const liveHistory = await deps.bus.call(recallRpc.listBrandScores, live, {});
    assert.ok(twinHistory.data.some((record) => record.brand === 'Fabrikam Heating'));
    assert.deepEqual(
      liveHistory.data.map((record) => record.brand),
      ['Northwind Dental'],
    );
  });

  test('a test twin’s recall searches its own documents only and answers from them without a provider', async () => {
    const addDocument = async (identity: Identity, title: string, text: string) => {
      const response = await post(identity, '/api/v1/knowledge/documents', { title, text });
      assert.equal(response.statusCode, 201, response.body);
      return response.json() as { id: string };
    };
    const hours = await addDocument(
      twin,
      'Opening hours',
      'The clinic is open weekdays from 8am to 6pm. On Saturdays the front desk answers calls until noon.',
    );
    const parking = await addDocument(twin, 'Parking and hours', 'Free parking is behind the clinic during opening hours.');
    const liveDocument = await addDocument(live, 'Opening hours (live)', 'The live clinic is open weekdays from 9am to 5pm.');

    const before = providerRequests();
    const first: RecallResponse = await ask(twin, 'opening hours');
    const second = await ask(twin, 'opening hours');
    assert.equal(providerRequests(), before, 'no request reached either provider');
    assert.deepEqual(second, first);
    assert.deepEqual(new Set(first.results.map((result) => result.document_id)), new Set([hours.id, parking.id]));
    assert.ok(first.answer?.startsWith('Test-mode simulation (no model was asked): '), first.answer ?? 'no answer');
    assert.match(first.answer ?? '', /\[1\]/);
    assert.deepEqual(first.answered_by, { provider: 'test-mode-simulator', model: simulatorModel });
    assert.deepEqual(
      first.citations.map((citation) => [citation.ref, citation.document_id]),
      first.results.slice(0, 2).map((result, index) => [index + 1, result.document_id]),
    );
    assert.equal(first.answer_error, null);

    // Nothing found: no answer, as in live mode.
    const nothing = await ask(twin, 'xylophone repairs');
    assert.deepEqual([nothing.results, nothing.answer, nothing.answered_by], [[], null, null]);

    // The live organization's recall still asks a provider, and sees only its own document.
    const liveAnswer = await ask(live, 'opening hours');
    assert.ok(providerRequests() > before);
    assert.deepEqual(
      liveAnswer.results.map((result) => result.document_id),
      [liveDocument.id],
    );
    assert.equal(liveAnswer.answered_by?.model, 'gpt-test');
  });

  test('with no provider configured, a test twin still gets its simulated score; a live organization gets 503', async (t) => {
    const { deps: bare, app: bareApp, close } = await startProviderlessApp(h);
    t.after(close);
    assert.equal(bare.providers.length, 0);
    const url = '/api/v1/llm-recall';
    const payload = { brand: 'Northwind Dental', url: 'https://northwind-dental.example/' };
    const simulated = await bareApp.inject({ method: 'POST', url, headers: gatewayHeaders(twin, 'POST', url), payload });
    assert.equal(simulated.statusCode, 200, simulated.body);
    assert.deepEqual(simulated.json(), await score(twin, payload.brand, payload.url));
    const refused = await bareApp.inject({ method: 'POST', url, headers: gatewayHeaders(live, 'POST', url), payload });
    assert.equal(refused.statusCode, 503);
    assert.equal(refused.json().error.code, 'unavailable');
  });
});

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { brandScoreResponseSchema, brandVerdicts, recommendationSeverities } from '@voice/proto';
import { categoryAnswerSchema, descriptionAnswerSchema, recognitionAnswerSchema } from '../src/domain/brand-prompts.js';
import { readPage } from '../src/domain/html.js';
import { brandWords, namesBrand, type ProviderAnswers, rankOf, scoreBrand, scoreProvider, verdictFor } from '../src/domain/rubric.js';

type Recorded = Record<string, { brand_recognition: unknown; brand_description: unknown; category_recall: unknown }>;
const recorded = JSON.parse(readFileSync(new URL('./fixtures/recorded-answers.json', import.meta.url), 'utf8')) as {
  brand: string;
  url: string;
  well_known: Recorded;
  known_not_recommended: Recorded;
  unknown: Recorded;
};

/** Recorded answers as the adapters hand them over: validated by the same schemas. */
function answers(provider: 'openai' | 'anthropic', set: Recorded, latencyMs = 420): ProviderAnswers {
  const said = set[provider];
  assert.ok(said, `no recorded answers for ${provider}`);
  return {
    provider,
    model: provider === 'openai' ? 'gpt-5.4' : 'claude-sonnet-4-6',
    latencyMs,
    recognition: { ok: true, value: recognitionAnswerSchema.parse(said.brand_recognition) },
    description: { ok: true, value: descriptionAnswerSchema.parse(said.brand_description) },
    category: { ok: true, value: categoryAnswerSchema.parse(said.category_recall) },
  };
}

const failed = (provider: 'openai' | 'anthropic'): ProviderAnswers => ({
  provider,
  model: 'm',
  latencyMs: 20_000,
  recognition: { ok: false, kind: 'timeout', message: `${provider} did not answer in time` },
  description: { ok: false, kind: 'timeout', message: `${provider} did not answer in time` },
  category: { ok: false, kind: 'timeout', message: `${provider} did not answer in time` },
});

const { brand, url } = recorded;

describe('brand names in model answers', () => {
  test('matching ignores case, accents, punctuation, legal suffixes and spacing', () => {
    assert.deepEqual(brandWords('Café Ltd.'), ['cafe']);
    assert.ok(namesBrand('Stripe, Inc.', 'Stripe', url));
    assert.ok(namesBrand('STRIPE', 'stripe', url));
    assert.ok(namesBrand('Hub Spot', 'HubSpot', 'https://hubspot.com'));
    assert.ok(namesBrand('acmewidgets', 'Acme', 'https://www.acme-widgets.co.uk'));
    assert.ok(!namesBrand('Stripes Apparel', 'Stripe', 'https://stripe.com'));
    assert.ok(!namesBrand('PayPal / Braintree', 'Stripe', url));
    assert.equal(rankOf(['PayPal', 'Stripe, Inc.', 'Adyen'], 'Stripe', url), 2);
    assert.equal(rankOf(['PayPal'], 'Stripe', url), null);
  });
});

describe('the rubric on recorded answers', () => {
  test('a well-known brand named by both models is prominent', () => {
    const result = scoreBrand({ brand, url, answers: [answers('openai', recorded.well_known), answers('anthropic', recorded.well_known)] });
    // OpenAI: 20 + 20 × 0.98 = 39.6, description 15 + 10 + 5 = 30, named #1 = 30 → 99.6 → 100.
    // Anthropic: 20 + 20 × 0.95 = 39, description 30, named #2 = 24 → 93.
    assert.deepEqual(
      result.probes.map((probe) => [probe.provider, probe.signal_score, probe.knows, probe.said.category?.rank]),
      [
        ['openai', 100, true, 1],
        ['anthropic', 93, true, 2],
      ],
    );
    assert.equal(result.score, 97);
    assert.equal(result.verdict, 'prominent');
    assert.equal(result.partial, false);
    assert.equal(
      result.zinger,
      'Top of mind: every model recognises Stripe, and all of them name it when asked for the best in its category.',
    );
    assert.deepEqual(
      result.recommendations.map((recommendation) => recommendation.title),
      ['Keep the signal fresh'],
    );
  });

  test('a brand known to one model and unknown to the other is faint, with the gap called out', () => {
    const result = scoreBrand({
      brand: 'Acme Voice',
      url: 'https://acmevoice.example',
      answers: [answers('openai', recorded.known_not_recommended), answers('anthropic', recorded.unknown)],
    });
    // OpenAI: 20 + 20 × 0.6 = 32, description: 3 words and no category → 0, not named → 0 → 32.
    // Anthropic: nothing → 0. Mean 16.
    assert.deepEqual(
      result.probes.map((probe) => [probe.signal_score, probe.knows]),
      [
        [32, true],
        [0, false],
      ],
    );
    assert.equal(result.score, 16);
    assert.equal(result.verdict, 'faint');
    assert.deepEqual(
      result.recommendations.map((recommendation) => [recommendation.severity, recommendation.title]),
      [
        ['high', 'Close the gap between models'],
        ['high', 'Win your category'],
        ['medium', 'Make what you do unmistakable'],
      ],
    );
    assert.match(result.recommendations[1]?.body ?? '', /AI receptionists/);
  });

  test('one provider failing: partial, scored on the other alone, and a re-run recommendation', () => {
    const result = scoreBrand({ brand, url, answers: [answers('openai', recorded.well_known), failed('anthropic')] });
    assert.equal(result.partial, true);
    assert.equal(result.score, 100);
    assert.equal(result.probes[1]?.status, 'failed');
    assert.equal(result.probes[1]?.knows, false);
    assert.equal(result.probes[1]?.latency_ms, 20_000);
    assert.equal(result.recommendations.at(-1)?.title, 'Re-run when Anthropic answers');
  });

  test('the same answers always give the same result', () => {
    const input = { brand, url, answers: [answers('openai', recorded.well_known, 100), answers('anthropic', recorded.unknown, 900)] };
    const first = scoreBrand(input);
    for (let run = 0; run < 5; run++) assert.deepEqual(scoreBrand(input), first);
  });

  test('a prose answer (parsed as nothing) counts as not knowing', () => {
    const prose: ProviderAnswers = {
      ...answers('openai', recorded.well_known),
      recognition: { ok: false, kind: 'malformed', message: 'answer to brand_recognition is not JSON' },
    };
    const scored = scoreProvider(prose, brand, url);
    // Without recognition the description counts half: 30 / 2 = 15; named #1: 30 → 45, and naming it means it knows.
    assert.equal(scored.probe.signal_score, 45);
    assert.equal(scored.probe.status, 'partial');
    assert.equal(scored.probe.error, 'answer to brand_recognition is not JSON');
  });

  test('verdict bands cover 0-100 in order', () => {
    assert.deepEqual([0, 14, 15, 34, 35, 59, 60, 79, 80, 100].map(verdictFor), [
      'invisible',
      'invisible',
      'faint',
      'faint',
      'emerging',
      'emerging',
      'known',
      'known',
      'prominent',
      'prominent',
    ]);
    assert.deepEqual([...new Set([0, 20, 40, 70, 90].map(verdictFor))], [...brandVerdicts]);
  });

  test('page findings add their recommendations, ordered by severity', () => {
    const page = readPage('<html><head><meta name="robots" content="noindex"><title>Home</title></head><body></body></html>', {
      url: 'http://stripe.com/',
      status: 200,
    });
    const result = scoreBrand({ brand, url, answers: [answers('openai', recorded.well_known)], page });
    const titles = result.recommendations.map((recommendation) => recommendation.title);
    assert.deepEqual(titles, [
      'Let search engines index the page',
      'Serve the site over HTTPS',
      'Add a meta description',
      'Put your brand name in the page title',
      'Describe your organization with structured data',
    ]);
    const severities = result.recommendations.map((recommendation) => recommendationSeverities.indexOf(recommendation.severity));
    assert.deepEqual(
      severities,
      [...severities].sort((a, b) => a - b),
    );
    brandScoreResponseSchema.parse({ ok: true, brand, ...result, api: { monthly_used: 1, monthly_quota: 2 } });
  });
});

// Test mode's stand-in for the model providers (services/recall/README.md, "Test mode"). A test twin's brand
// score and recall answer come from here: no provider is called, so nothing is paid for, nothing counts
// against a provider's rate limits, and a test suite gets the same answer every time. The simulated answers
// go through the real rubric, so the response has the live shape and the live rules; every text a person
// reads says it is a simulation.
import { createHash } from 'node:crypto';
import type { BrandProvider, BrandScoreInput, RecallResponse } from '@voice/proto';
import type { PassageHit } from '../store/search.js';
import { type CategoryAnswer, type DescriptionAnswer, type RecognitionAnswer, siteOf } from './brand-prompts.js';
import { type BrandScoreParts, brandWords, type ProviderAnswers, scoreBrand } from './rubric.js';

/** The model name simulated probes and answers carry, so a response cannot be mistaken for a real model's. */
export const simulatorModel = 'test-mode-simulator';
const simulatedProviders: readonly BrandProvider[] = ['openai', 'anthropic'];

/**
 * The simulated market a brand is placed in: its category and the brands a model would name in it. The names
 * are the fictional companies of software documentation, so no real company is ranked by the simulator.
 */
const simulatedCategories: ReadonlyArray<{ category: string; brands: readonly string[] }> = [
  { category: 'dental clinics', brands: ['Northwind Dental', 'Contoso Smiles', 'Fabrikam Family Dentistry', 'Tailspin Orthodontics'] },
  { category: 'home cleaning services', brands: ['Litware Home', 'Proseware Cleaning', 'Wingtip Maids', 'Adventure Works Clean'] },
  { category: 'customer support software vendors', brands: ['Contoso Desk', 'Fabrikam Helpdesk', 'Northwind Support', 'Litware Care'] },
  { category: 'specialty coffee roasters', brands: ['Fourth Coffee', 'Wingtip Roasters', 'Tailspin Beans', 'Proseware Roastery'] },
  { category: 'accounting firms', brands: ['Woodgrove Accounting', 'Contoso Ledger', 'Fabrikam CPAs', 'Northwind Tax'] },
  { category: 'fitness studios', brands: ['Adventure Works Fitness', 'Tailspin Gym', 'Litware Yoga', 'Wingtip Pilates'] },
  { category: 'HVAC contractors', brands: ['Fabrikam Heating', 'Contoso Air', 'Proseware Climate', 'Northwind HVAC'] },
  { category: 'law firms', brands: ['Woodgrove Legal', 'Litware Law', 'Tailspin Partners', 'Fourth Street Counsel'] },
];

/** Bytes of a stable hash of the parts: the simulator's only source of variety. */
function digest(...parts: string[]): Buffer {
  return createHash('sha256').update(parts.join('\u0000')).digest();
}

/** A number in [0, 1) from one byte of a digest. */
const fraction = (bytes: Buffer, index: number) => (bytes[index] ?? 0) / 256;
const round2 = (value: number) => Math.round(value * 100) / 100;

/**
 * What one simulated provider "says" about the brand. The brand's strength (how well known it is, 0-1) is
 * one figure per brand and site, and each provider sees it a little differently (±0.15), as two real models do:
 * - below 0.35 the provider does not know the brand: no recognition, no description, not named;
 * - from 0.35 it knows it (confidence 0.5 + strength/2), with a category and two to four competitors,
 *   and from 0.5 describes it specifically (eight words or more);
 * - from 0.55 it names the brand in its category, the stronger the higher (rank 1 + ⌊(1 − strength) × 8⌋).
 */
function simulatedAnswers(input: BrandScoreInput, provider: BrandProvider): ProviderAnswers {
  const site = siteOf(input.url);
  const brandKey = [brandWords(input.brand).join(' '), site];
  const brandBytes = digest(...brandKey);
  const market = simulatedCategories[(brandBytes[1] ?? 0) % simulatedCategories.length] ?? simulatedCategories[0];
  if (!market) throw new Error('the simulator has no categories');
  const providerBytes = digest(...brandKey, provider);
  const strength = Math.min(0.99, Math.max(0, fraction(brandBytes, 0) + (fraction(providerBytes, 0) - 0.5) * 0.3));
  const knows = strength >= 0.35;
  const others = market.brands.filter((name) => brandWords(name).join(' ') !== brandKey[0]);
  const competitors = others.slice(0, 2 + ((providerBytes[1] ?? 0) % 3));

  const recognition: RecognitionAnswer = {
    knows,
    confidence: round2(knows ? 0.5 + strength / 2 : strength),
    summary: knows ? `Test-mode simulation (no model was asked): ${input.brand} (${site}) is among the ${market.category}.` : '',
  };
  const description: DescriptionAnswer = {
    description: !knows
      ? ''
      : strength >= 0.5
        ? `Test-mode simulation: ${input.brand} is among the ${market.category} and serves its customers through ${site}; no model was asked.`
        : `Test-mode simulation: ${market.category}.`,
    category: knows ? market.category : '',
    competitors: knows ? competitors : [],
  };
  // A rotation of the market per provider, so the two lists differ as two models' do.
  const rotation = (providerBytes[2] ?? 0) % others.length;
  const brands = [...others.slice(rotation), ...others.slice(0, rotation)];
  if (strength >= 0.55) brands.splice(Math.floor((1 - strength) * 8), 0, input.brand);
  const category: CategoryAnswer = { category: market.category, brands };

  return {
    provider,
    model: simulatorModel,
    latencyMs: 0,
    recognition: { ok: true, value: recognition },
    description: { ok: true, value: description },
    category: { ok: true, value: category },
  };
}

/**
 * A test twin's brand score: both providers simulated, scored by the live rubric. The brand's page is not
 * read (a third party's page changes, and the same input must give the same result). Same brand (compared as
 * the rubric compares names: case, accents, punctuation and legal suffixes aside) and site, same result.
 */
export function simulateBrandScore(input: BrandScoreInput): BrandScoreParts {
  const parts = scoreBrand({
    brand: input.brand,
    url: input.url,
    answers: simulatedProviders.map((provider) => simulatedAnswers(input, provider)),
  });
  return {
    ...parts,
    zinger: `Test mode (simulated): ${parts.zinger}`,
    // Low severity, so it comes last after the rubric's sorted recommendations.
    recommendations: [
      ...parts.recommendations,
      {
        title: 'Simulated in test mode',
        severity: 'low',
        body:
          'No model was asked: this score comes from the deterministic test-mode simulator (the same brand and site always give ' +
          'the same result) and its brands are fictional. Score the brand with a live key for what OpenAI and Anthropic really say.',
      },
    ],
  };
}

/** The first sentence of a passage (or its first 240 characters), as the simulated answer quotes it. */
function firstSentence(text: string): string {
  const sentence = /^[\s\S]*?[.!?](?=\s|$)/.exec(text.trim())?.[0] ?? text.trim();
  return sentence.length > 240 ? `${sentence.slice(0, 239)}…` : sentence;
}

/**
 * A test twin's recall answer: the passages found (searched in Postgres as in live mode) quoted, not
 * understood: the best one's first sentence, citing it as [1], and the second best's title as [2].
 */
export function simulateGroundedAnswer(
  hits: readonly PassageHit[],
): Pick<RecallResponse, 'answer' | 'citations' | 'answered_by' | 'answer_error'> {
  const cited = hits.slice(0, 2);
  const [best, next] = cited;
  if (!best) return { answer: null, citations: [], answered_by: null, answer_error: null };
  const seeAlso = next ? ` See also “${next.title}” [2].` : '';
  return {
    answer: `Test-mode simulation (no model was asked): “${best.title}” says: ${firstSentence(best.content)} [1]${seeAlso}`,
    citations: cited.map((hit, index) => ({ ref: index + 1, document_id: hit.documentId, passage_id: hit.passageId, title: hit.title })),
    answered_by: { provider: 'test-mode-simulator', model: simulatorModel },
    answer_error: null,
  };
}

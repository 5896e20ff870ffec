// The brand-score rubric: pure functions from what the providers said (and, optionally, what the brand's
// page shows) to probes, score, verdict, zinger and recommendations. Same answers in, same result out.
// The rubric is documented in services/recall/README.md; keep the two in step.
import type { BrandProbe, BrandProvider, BrandVerdict, Recommendation, RecommendationSeverity } from '@voice/proto';
import type { CategoryAnswer, DescriptionAnswer, RecognitionAnswer } from './brand-prompts.js';
import type { PageFindings } from './html.js';

export type PromptOutcome<T> = { ok: true; value: T } | { ok: false; kind: string; message: string };

/** Everything one provider answered, prompt by prompt. */
export interface ProviderAnswers {
  provider: BrandProvider;
  model: string;
  latencyMs: number;
  recognition: PromptOutcome<RecognitionAnswer>;
  description: PromptOutcome<DescriptionAnswer>;
  category: PromptOutcome<CategoryAnswer>;
}

export interface BrandScoreParts {
  score: number;
  verdict: BrandVerdict;
  zinger: string;
  probes: BrandProbe[];
  recommendations: Recommendation[];
  partial: boolean;
}

/** Verdict bands: the lowest score of each verdict. */
export const verdictBands: ReadonlyArray<readonly [BrandVerdict, number]> = [
  ['prominent', 80],
  ['known', 60],
  ['emerging', 35],
  ['faint', 15],
  ['invisible', 0],
];

export function verdictFor(score: number): BrandVerdict {
  for (const [verdict, lowest] of verdictBands) if (score >= lowest) return verdict;
  return 'invisible';
}

const legalSuffixes = new Set([
  'inc',
  'llc',
  'ltd',
  'limited',
  'gmbh',
  'ag',
  'sa',
  'sas',
  'bv',
  'co',
  'corp',
  'corporation',
  'company',
  'plc',
]);

/** Lowercase words without accents, punctuation or legal suffixes: "Café Ltd." → ["cafe"]. */
export function brandWords(name: string): string[] {
  const words = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .split(' ')
    .filter((word) => word !== '');
  const trimmed = [...words];
  while (trimmed.length > 1 && legalSuffixes.has(trimmed.at(-1) ?? '')) trimmed.pop();
  return trimmed;
}

/** The registrable-looking label of a host: `www.acme-widgets.co.uk` → `acmewidgets`. */
function siteLabel(url: string): string {
  const labels = new URL(url).hostname.replace(/^www\./, '').split('.');
  const secondLevel = labels.length >= 3 && (labels.at(-2)?.length ?? 0) <= 3 ? labels.at(-3) : labels.at(-2);
  return (secondLevel ?? labels[0] ?? '').replace(/[^a-z0-9]/g, '');
}

/**
 * Whether a listed name is this brand: the brand's words appear in order in the name, or the names match
 * with spaces removed ("Hub Spot" = "HubSpot"), or the name is the site's label ("acmewidgets").
 */
export function namesBrand(listed: string, brand: string, url: string): boolean {
  const listedWords = brandWords(listed);
  const wanted = brandWords(brand);
  if (listedWords.length === 0 || wanted.length === 0) return false;
  const listedText = ` ${listedWords.join(' ')} `;
  if (listedText.includes(` ${wanted.join(' ')} `)) return true;
  const compactListed = listedWords.join('');
  if (compactListed === wanted.join('')) return true;
  const label = siteLabel(url);
  return label.length >= 3 && compactListed === label;
}

/** Where the brand appears in a ranked list, 1-based, or null. */
export function rankOf(brands: readonly string[], brand: string, url: string): number | null {
  const index = brands.findIndex((listed) => namesBrand(listed, brand, url));
  return index === -1 ? null : index + 1;
}

const wordCount = (text: string) => text.trim().split(/\s+/).filter(Boolean).length;

/** Points for being named when a model is asked for the best in the category, by rank. */
export function categoryPoints(rank: number | null): number {
  if (rank === null) return 0;
  if (rank === 1) return 30;
  if (rank <= 3) return 24;
  if (rank <= 5) return 18;
  if (rank <= 10) return 12;
  return 6;
}

interface ScoredProbe {
  probe: BrandProbe;
  failed: boolean;
  knows: boolean;
  rank: number | null;
  category: string;
  describedVaguely: boolean;
}

/**
 * One provider's signal, 0-100:
 * - recognition, up to 40: 20 for "knows", plus 20 × its confidence;
 * - description, up to 30: 15 for a specific description (8+ words), 10 for a category, 5 for 2+ competitors,
 *   halved when the model says it does not know the brand (a guess from the name is weak evidence);
 * - category recall, up to 30: named among the brands it recommends in the category: #1 30, #2-3 24,
 *   #4-5 18, #6-10 12, later 6.
 * `knows` is true when the model says it knows the brand with confidence ≥ 0.5, or names it unprompted.
 */
export function scoreProvider(answers: ProviderAnswers, brand: string, url: string): ScoredProbe {
  const recognition = answers.recognition.ok ? answers.recognition.value : null;
  const description = answers.description.ok ? answers.description.value : null;
  const categoryAnswer = answers.category.ok ? answers.category.value : null;
  const rank = categoryAnswer ? rankOf(categoryAnswer.brands, brand, url) : null;

  const recognitionPoints = recognition?.knows ? 20 + 20 * Math.min(1, Math.max(0, recognition.confidence)) : 0;
  let descriptionPoints = 0;
  if (description) {
    if (wordCount(description.description) >= 8) descriptionPoints += 15;
    if (description.category.trim() !== '') descriptionPoints += 10;
    if (description.competitors.filter((name) => name.trim() !== '').length >= 2) descriptionPoints += 5;
    if (!recognition?.knows) descriptionPoints /= 2;
  }
  const signal = Math.min(100, Math.round(recognitionPoints + descriptionPoints + categoryPoints(rank)));
  const knows = (recognition?.knows === true && recognition.confidence >= 0.5) || rank !== null;

  const outcomes = [answers.recognition, answers.description, answers.category];
  const failures = outcomes.flatMap((outcome) => (outcome.ok ? [] : [outcome.message]));
  const failed = failures.length === outcomes.length;
  const status = failed ? 'failed' : failures.length > 0 ? 'partial' : 'ok';
  return {
    probe: {
      provider: answers.provider,
      model: answers.model,
      knows: failed ? false : knows,
      signal_score: failed ? 0 : signal,
      status,
      latency_ms: Math.max(0, Math.round(answers.latencyMs)),
      // The three prompts of a dead provider fail alike: say it once.
      error: failures.length > 0 ? [...new Set(failures)].join('; ') : null,
      said: {
        recognition,
        description,
        category: categoryAnswer ? { category: categoryAnswer.category, brands: categoryAnswer.brands, named: rank !== null, rank } : null,
      },
    },
    failed,
    knows: !failed && knows,
    rank,
    category: (categoryAnswer?.category || description?.category || '').trim(),
    describedVaguely: description === null || wordCount(description.description) < 8 || description.category.trim() === '',
  };
}

const providerLabel: Record<BrandProvider, string> = { openai: 'OpenAI', anthropic: 'Anthropic' };

function listLabels(providers: readonly BrandProvider[]): string {
  const labels = providers.map((provider) => providerLabel[provider]);
  return labels.length <= 1 ? (labels[0] ?? '') : `${labels.slice(0, -1).join(', ')} and ${labels.at(-1)}`;
}

const zingerLead: Record<BrandVerdict, string> = {
  invisible: 'Invisible to AI',
  faint: 'Barely a blip',
  emerging: 'On the radar',
  known: 'A known name',
  prominent: 'Top of mind',
};

/** The facts half of the zinger: who recognises the brand and who names it in its category. */
function zingerFacts(brand: string, answered: number, knowers: number, namers: number, only: BrandProvider | undefined): string {
  const category = 'when asked for the best in its category';
  if (answered === 1) {
    const label = providerLabel[only ?? 'openai'];
    const knows = knowers === 1 ? `${label} recognises ${brand}` : `${label} does not recognise ${brand}`;
    return `${knows} and ${namers === 1 ? 'names' : 'does not name'} it ${category} (the other model did not answer)`;
  }
  const knows =
    knowers === 0
      ? `no model recognises ${brand}`
      : knowers === answered
        ? `every model recognises ${brand}`
        : `${knowers} of ${answered} models recognise ${brand}`;
  const names =
    namers === 0
      ? `none names it ${category}`
      : namers === answered
        ? `all of them name it ${category}`
        : `${namers} of ${answered} name it ${category}`;
  return `${knows}, and ${names}`;
}

const severityOrder: Record<RecommendationSeverity, number> = { critical: 0, high: 1, medium: 2, low: 3 };

function pageRecommendations(brand: string, page: PageFindings): Recommendation[] {
  if (!page.reachable) {
    return [
      {
        title: 'Make your site reachable',
        severity: 'high',
        body: `We could not load the page (${page.error ?? 'no answer'}). Crawlers that feed language models cannot learn from a page they cannot fetch.`,
      },
    ];
  }
  const found: Recommendation[] = [];
  if (page.noindex) {
    found.push({
      title: 'Let search engines index the page',
      severity: 'critical',
      body: 'The page asks robots not to index it (noindex), which keeps it out of the sources models are trained and grounded on.',
    });
  }
  if (!page.https) {
    found.push({
      title: 'Serve the site over HTTPS',
      severity: 'medium',
      body: 'The page is served over plain HTTP; crawlers and browsers rank HTTPS pages higher.',
    });
  }
  if (!page.title) {
    found.push({
      title: 'Give the page a title',
      severity: 'medium',
      body: 'The page has no <title>; it is the first thing crawlers store about a page.',
    });
  } else if (!namesBrandInText(page.title, brand)) {
    found.push({
      title: 'Put your brand name in the page title',
      severity: 'low',
      body: `The title “${page.title.slice(0, 80)}” does not mention ${brand}, so the page is not tied to the name models hear.`,
    });
  }
  if (!page.metaDescription) {
    found.push({
      title: 'Add a meta description',
      severity: 'medium',
      body: 'Write one sentence that says what you do and for whom; it becomes the summary crawlers and models quote.',
    });
  }
  if (!page.hasOrganizationJsonLd) {
    found.push({
      title: 'Describe your organization with structured data',
      severity: 'low',
      body: 'Add schema.org Organization JSON-LD (name, url, logo, sameAs links) so machines can tie your name, site and profiles together.',
    });
  }
  return found;
}

function namesBrandInText(text: string, brand: string): boolean {
  const haystack = ` ${brandWords(text).join(' ')} `;
  const wanted = brandWords(brand).join(' ');
  return wanted !== '' && (haystack.includes(` ${wanted} `) || brandWords(text).join('').includes(wanted.replaceAll(' ', '')));
}

/**
 * The whole score from every provider's answers. Providers that failed outright are left out of the
 * average and mark the result partial; the caller turns "every provider failed" into a 502.
 */
export function scoreBrand(input: {
  brand: string;
  url: string;
  answers: readonly ProviderAnswers[];
  page?: PageFindings | undefined;
}): BrandScoreParts {
  const { brand, url } = input;
  const scored = input.answers.map((answers) => scoreProvider(answers, brand, url));
  const usable = scored.filter((entry) => !entry.failed);
  const failedProviders = scored.filter((entry) => entry.failed).map((entry) => entry.probe.provider);
  const score = usable.length === 0 ? 0 : Math.round(usable.reduce((sum, entry) => sum + entry.probe.signal_score, 0) / usable.length);
  const verdict = verdictFor(score);
  const knowers = usable.filter((entry) => entry.knows);
  const namers = usable.filter((entry) => entry.rank !== null);

  const zinger = `${zingerLead[verdict]}: ${zingerFacts(brand, usable.length, knowers.length, namers.length, usable[0]?.probe.provider)}.`;

  const recommendations: Recommendation[] = [];
  if (knowers.length === 0) {
    recommendations.push({
      title: `Give models something to learn about ${brand}`,
      severity: 'critical',
      body:
        'Neither model can say what you do. Get described where models learn: an about page that states what you do and for whom, ' +
        'listings in the directories and review sites of your category, Wikipedia/Wikidata if notable, and press that names you.',
    });
  } else if (knowers.length < usable.length) {
    const unaware = usable.filter((entry) => !entry.knows).map((entry) => entry.probe.provider);
    recommendations.push({
      title: 'Close the gap between models',
      severity: 'high',
      body: `${listLabels(unaware)} does not recognise ${brand} while ${listLabels(knowers.map((entry) => entry.probe.provider))} does. Models learn from different crawls: spread consistent descriptions across more independent sources.`,
    });
  }
  if (knowers.length > 0 && namers.length === 0) {
    const category = knowers.find((entry) => entry.category !== '')?.category ?? 'your category';
    recommendations.push({
      title: 'Win your category',
      severity: 'high',
      body: `Models know ${brand} but do not name it among the best in “${category}”. Earn comparisons, “best of” lists and reviews that place you next to the brands they do name.`,
    });
  } else if (namers.length > 0) {
    const bestRank = Math.min(...namers.map((entry) => entry.rank ?? Number.POSITIVE_INFINITY));
    if (bestRank > 3) {
      recommendations.push({
        title: 'Climb the category shortlist',
        severity: 'medium',
        body: `${brand} is named in its category, but at best in position ${bestRank}. Models favour brands cited often with the category’s key terms; publish and earn content that pairs them.`,
      });
    }
  }
  if (knowers.some((entry) => entry.describedVaguely)) {
    recommendations.push({
      title: 'Make what you do unmistakable',
      severity: 'medium',
      body: `At least one model that knows ${brand} cannot describe it specifically or name its category. State your category and offer in the same words everywhere: homepage, profiles, press kit.`,
    });
  }
  if (input.page) recommendations.push(...pageRecommendations(brand, input.page));
  if (failedProviders.length > 0) {
    recommendations.push({
      title: `Re-run when ${listLabels(failedProviders)} answers`,
      severity: 'low',
      body: `${listLabels(failedProviders)} did not answer usably this time, so this score rests on ${listLabels(usable.map((entry) => entry.probe.provider))} alone.`,
    });
  }
  if (recommendations.length === 0) {
    recommendations.push({
      title: 'Keep the signal fresh',
      severity: 'low',
      body: `Models know ${brand} and recommend it. Keep publishing and earning mentions so newer models, trained on newer crawls, keep doing so.`,
    });
  }
  // A stable sort keeps the rule order within one severity.
  recommendations.sort((a, b) => severityOrder[a.severity] - severityOrder[b.severity]);

  return {
    score,
    verdict,
    zinger,
    probes: scored.map((entry) => entry.probe),
    recommendations,
    partial: failedProviders.length > 0,
  };
}

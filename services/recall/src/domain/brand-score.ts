import { ApiError } from '@voice/kit';
import type { BrandScoreInput } from '@voice/proto';
import type { LlmProvider } from '../providers/structured.js';
import { ProviderError } from '../providers/structured.js';
import { brandPrompts } from './brand-prompts.js';
import type { PageFindings } from './html.js';
import { type BrandScoreParts, type PromptOutcome, type ProviderAnswers, scoreBrand } from './rubric.js';

export interface BrandScoreDeps {
  providers: readonly LlmProvider[];
  /** Upper bound for one provider's probe; its three prompts run in parallel inside it. */
  providerTimeoutMs: number;
  /** Reads the brand's page, when page checks are on; never rejects (failures are findings). */
  checkPage?: ((url: string) => Promise<PageFindings>) | undefined;
}

export const noProviderMessage =
  'No model provider is configured. Set OPENAI_API_KEY (and optionally OPENAI_BASE_URL, OPENAI_MODEL) and/or ' +
  'ANTHROPIC_API_KEY (and optionally ANTHROPIC_BASE_URL, ANTHROPIC_MODEL) on the recall service.';

async function outcome<T>(work: Promise<T>): Promise<PromptOutcome<T>> {
  try {
    return { ok: true, value: await work };
  } catch (error) {
    const providerError = error instanceof ProviderError ? error : new ProviderError('upstream', String(error));
    return { ok: false, kind: providerError.kind, message: providerError.message };
  }
}

/** One provider's three prompts, in parallel, under one deadline. */
export async function probeProvider(provider: LlmProvider, input: BrandScoreInput, timeoutMs: number): Promise<ProviderAnswers> {
  const prompts = brandPrompts(input.brand, input.url);
  const signal = AbortSignal.timeout(timeoutMs);
  const started = performance.now();
  const [recognition, description, category] = await Promise.all([
    outcome(provider.ask(prompts.recognition, signal)),
    outcome(provider.ask(prompts.description, signal)),
    outcome(provider.ask(prompts.category, signal)),
  ]);
  return { provider: provider.name, model: provider.model, latencyMs: performance.now() - started, recognition, description, category };
}

/**
 * Scores a brand: every configured provider probed at once (wall time is the slowest provider, not the
 * sum), the page read alongside when enabled, then the rubric. No provider configured is 503; every
 * provider failing is 502; one failing gives a partial result.
 */
export async function scoreBrandWithProviders(deps: BrandScoreDeps, input: BrandScoreInput): Promise<BrandScoreParts> {
  if (deps.providers.length === 0) throw new ApiError('unavailable', noProviderMessage);
  const [answers, page] = await Promise.all([
    Promise.all(deps.providers.map((provider) => probeProvider(provider, input, deps.providerTimeoutMs))),
    deps.checkPage ? deps.checkPage(input.url) : Promise.resolve(undefined),
  ]);
  const parts = scoreBrand({ brand: input.brand, url: input.url, answers, page });
  if (parts.probes.every((probe) => probe.status === 'failed')) {
    const reasons = parts.probes.map((probe) => `${probe.provider}: ${probe.error ?? 'no answer'}`).join('; ');
    throw new ApiError('upstream_failed', `No model provider gave a usable answer (${reasons}). Retry later.`);
  }
  return parts;
}

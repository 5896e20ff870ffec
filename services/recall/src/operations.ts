// What each operation of `recallRpc` does, over REST and NATS alike: each takes the caller's identity (for
// the organization and the quota figures it reports) and validated input.
import { ApiError, insertOutboxRows, type OperationHandlers, PendingEvents } from '@voice/kit';
import {
  type BrandScoreInput,
  type BrandScoreResponse,
  brandScoreInputSchema,
  type Identity,
  isTestOrg,
  type RecallInput,
  type RecallResponse,
  type recallRpc,
} from '@voice/proto';
import type { RecallDeps } from './deps.js';
import { scoreBrandWithProviders } from './domain/brand-score.js';
import { recall } from './domain/recall.js';
import { simulateBrandScore } from './domain/test-mode-simulator.js';
import { listBrandScores, recordBrandScore } from './store/brand-scores.js';
import { createDocument, deleteDocument, getDocument, listDocuments, updateDocument } from './store/documents.js';

/** The key's monthly count after this request, as the gateway's Lua call left it. */
const usageOf = (identity: Identity) => ({ monthly_used: identity.monthly_used, monthly_quota: identity.monthly_quota });

export async function recallOperation(deps: RecallDeps, identity: Identity, input: RecallInput): Promise<RecallResponse> {
  const result = await recall(deps.recall, identity.org_id, input);
  return { ...result, api: usageOf(identity) };
}

export async function brandScoreOperation(deps: RecallDeps, identity: Identity, input: BrandScoreInput): Promise<BrandScoreResponse> {
  // A test twin's score is simulated (README, "Test mode"): no provider is called or paid for.
  const parts = isTestOrg(identity.org_id) ? simulateBrandScore(input) : await scoreBrandWithProviders(deps.brandScore, input);
  for (const probe of parts.probes) {
    if (probe.status !== 'ok') {
      deps.logger.warn(
        { provider: probe.provider, model: probe.model, status: probe.status, error: probe.error },
        'brand probe incomplete',
      );
    }
  }
  const response: BrandScoreResponse = {
    ok: true,
    brand: input.brand,
    score: parts.score,
    verdict: parts.verdict,
    zinger: parts.zinger,
    probes: parts.probes,
    recommendations: parts.recommendations,
    partial: parts.partial,
    api: usageOf(identity),
  };
  // A score is paid for in model calls, subscribers count on its event, and people compare it with earlier
  // ones: the organization's record of it and its event row are written together, so the answer does not
  // wait for NATS. If that write fails, the score is still answered and the loss logged.
  const events = new PendingEvents();
  events.add('recall.brand_scored', identity.org_id, {
    brand: input.brand,
    url: input.url,
    score: parts.score,
    verdict: parts.verdict,
    partial: parts.partial,
    providers: parts.probes.map((probe) => ({
      provider: probe.provider,
      model: probe.model,
      status: probe.status,
      signal_score: probe.signal_score,
    })),
  });
  const kept = { brand: input.brand, url: input.url, score: parts.score, verdict: parts.verdict, partial: parts.partial };
  await deps.prisma
    .$transaction(async (tx) => {
      await recordBrandScore(tx, identity.org_id, kept);
      await insertOutboxRows(tx, events.entries);
    })
    .then(
      () => deps.outbox.nudge(),
      (error: unknown) => deps.logger.error({ err: error }, 'brand score and recall.brand_scored not recorded'),
    );
  return response;
}

export function recallOperations(deps: RecallDeps): OperationHandlers<typeof recallRpc> {
  const { prisma } = deps;
  return {
    recall: (input, identity) => recallOperation(deps, identity, input),
    brandScore: (input, identity) => brandScoreOperation(deps, identity, input),
    llmRecall: async ({ query, brand, url, limit }, identity) => {
      if (query !== undefined) return recallOperation(deps, identity, { query, limit: limit ?? 5 });
      // The body's refinement already insists on brand and url together; this parse narrows the types.
      return brandScoreOperation(deps, identity, brandScoreInputSchema.parse({ brand, url }));
    },
    marketingAudit: async () => {
      throw new ApiError(
        'coming_soon',
        'The API-key marketing audit is coming soon; POST /api/public/marketing-audit works today, rate-limited.',
      );
    },
    // Idempotent by its definition: the same key and body add one document.
    addDocument: (input, identity) => createDocument(prisma, identity.org_id, input),
    listDocuments: (input, identity) => listDocuments(prisma, identity.org_id, input),
    getDocument: (input, identity) => getDocument(prisma, identity.org_id, input.id),
    updateDocument: (input, identity) => updateDocument(prisma, identity.org_id, input.id, input.changes),
    deleteDocument: (input, identity) => deleteDocument(prisma, identity.org_id, input.id),
    listBrandScores: (input, identity) => listBrandScores(prisma, identity.org_id, input),
  };
}

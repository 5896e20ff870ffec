// Records, request schemas and NATS operations of the recall service: the knowledge base (documents split
// into passages), knowledge-base recall with cited answers, the brand score and the marketing audit.
import { z } from 'zod';
import { deletedSchema, idempotencyKeySchema, timestampSchema } from './common.js';
import { errorEnvelopeSchema } from './errors.js';
import { idSchema } from './ids.js';
import { listQuerySchema, pageSchema } from './pagination.js';
import { defineRpc, nameOperations, type PublicRoute } from './rpc.js';

/** Limits of one document, stated once so validation, docs and MCP input schemas agree. */
export const knowledgeLimits = {
  titleMaxLength: 200,
  /** About 60 pages of prose; longer sources are split into several documents by the caller. */
  textMaxLength: 200_000,
  urlMaxLength: 2_048,
  queryMaxLength: 1_000,
  brandMaxLength: 200,
  recallMaxResults: 20,
} as const;

/** An absolute http(s) URL. Other schemes (file:, ftp:, javascript:…) are refused at the door. */
export const httpUrlSchema = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .max(knowledgeLimits.urlMaxLength)
  .describe('Absolute http:// or https:// URL');

// ---------------------------------------------------------------------------------------------------------
// Documents

export const documentListItemSchema = z
  .object({
    id: idSchema('document'),
    object: z.literal('document'),
    title: z.string(),
    source_url: z.string().nullable(),
    characters: z.number().int().nonnegative().describe('Length of the text in characters'),
    passage_count: z.number().int().nonnegative().describe('How many passages the text was split into for recall'),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'DocumentListItem' });
export type DocumentListItem = z.infer<typeof documentListItemSchema>;

/** The full document adds its text, which can be large and is therefore left out of lists. */
export const documentSchema = documentListItemSchema.extend({ text: z.string() }).meta({ id: 'Document' });
export type KnowledgeDocument = z.infer<typeof documentSchema>;

export const documentPageSchema = pageSchema(documentListItemSchema).meta({ id: 'DocumentPage' });

export const listDocumentsQuerySchema = listQuerySchema;
export type ListDocumentsQuery = z.infer<typeof listDocumentsQuerySchema>;

export const createDocumentBodySchema = z
  .object({
    title: z.string().trim().min(1).max(knowledgeLimits.titleMaxLength).describe('Shown with every recalled passage'),
    text: z
      .string()
      .trim()
      .min(1)
      .max(
        knowledgeLimits.textMaxLength,
        `must be at most ${knowledgeLimits.textMaxLength} characters; split longer sources into several documents`,
      )
      .describe('Plain text or Markdown; split into passages for recall'),
    source_url: httpUrlSchema.optional().describe('Where the text comes from, returned with recalled passages'),
  })
  .strict()
  .meta({ id: 'CreateDocumentRequest' });
export type CreateDocumentBody = z.infer<typeof createDocumentBodySchema>;

export const updateDocumentBodySchema = z
  .object({
    title: createDocumentBodySchema.shape.title.optional(),
    text: createDocumentBodySchema.shape.text.optional().describe('Replaces the whole text; the passages are rebuilt'),
    source_url: httpUrlSchema.nullable().optional().describe('null removes it'),
  })
  .strict()
  .refine((body) => Object.values(body).some((value) => value !== undefined), { message: 'send at least one of title, text, source_url' })
  .meta({ id: 'UpdateDocumentRequest' });
export type UpdateDocumentBody = z.infer<typeof updateDocumentBodySchema>;

/** The NATS input of addDocument: the REST body plus the idempotency key (the `Idempotency-Key` header on REST). */
export const addDocumentInputSchema = createDocumentBodySchema.extend({
  idempotency_key: idempotencyKeySchema
    .optional()
    .describe('Same meaning as the Idempotency-Key header: a retried request with the same key adds one document.'),
});
export type AddDocumentInput = z.infer<typeof addDocumentInputSchema>;

export const documentIdParamsSchema = z.object({ id: idSchema('document') });

export const deletedDocumentSchema = deletedSchema('document', idSchema('document')).meta({ id: 'DeletedDocument' });

// ---------------------------------------------------------------------------------------------------------
// POST /api/v1/llm-recall: either {query} or {brand, url}

/** The quota figures of the calling key after this request, as the gateway counted it. */
export const apiUsageSchema = z
  .object({
    monthly_used: z.number().int().nonnegative(),
    monthly_quota: z.number().int().nonnegative(),
  })
  .meta({ id: 'ApiUsage' });

export const recallQuerySchema = z
  .string()
  .trim()
  .min(1)
  .max(knowledgeLimits.queryMaxLength)
  .describe('A question or keywords over your knowledge base');

export const brandSchema = z.string().trim().min(1).max(knowledgeLimits.brandMaxLength).describe('Brand name to score');

/**
 * The body of `POST /api/v1/llm-recall`. The two forms share one route, so the schema lists all four
 * fields and the refinement insists on exactly one form, with a message that says which.
 */
export const llmRecallBodySchema = z
  .object({
    query: recallQuerySchema.optional(),
    brand: brandSchema.optional(),
    url: httpUrlSchema.optional().describe('The brand’s website (with `brand`)'),
    limit: z.number().int().min(1).max(knowledgeLimits.recallMaxResults).optional().describe('Passages to return with `query`, default 5'),
  })
  .strict()
  .superRefine((body, context) => {
    const recall = body.query !== undefined;
    const brand = body.brand !== undefined || body.url !== undefined;
    if (recall && brand) {
      context.addIssue({
        code: 'custom',
        path: body.brand !== undefined ? ['brand'] : ['url'],
        message: 'send either {query} (knowledge-base recall) or {brand, url} (brand score), not both',
      });
    } else if (!recall && !brand) {
      context.addIssue({
        code: 'custom',
        path: ['query'],
        message: 'send either {query} (knowledge-base recall) or {brand, url} (brand score)',
      });
    } else if (brand && body.brand === undefined) {
      context.addIssue({ code: 'custom', path: ['brand'], message: 'brand is required with url' });
    } else if (brand && body.url === undefined) {
      context.addIssue({ code: 'custom', path: ['url'], message: 'url is required with brand' });
    } else if (brand && body.limit !== undefined) {
      context.addIssue({ code: 'custom', path: ['limit'], message: 'limit applies to {query} only' });
    }
  })
  // The refinement's rule, stated for the OpenAPI document and generated clients: exactly one of the two
  // forms, so `{}` (or a mix) is invalid by the schema as it is at runtime.
  .meta({
    id: 'LlmRecallRequest',
    oneOf: [
      { title: 'Recall', required: ['query'], properties: { query: { type: 'string' }, brand: false, url: false } },
      {
        title: 'Brand score',
        required: ['brand', 'url'],
        properties: { brand: { type: 'string' }, url: { type: 'string' }, query: false, limit: false },
      },
    ],
  });
export type LlmRecallBody = z.infer<typeof llmRecallBodySchema>;

export const recallInputSchema = z.object({
  query: recallQuerySchema,
  limit: z.number().int().min(1).max(knowledgeLimits.recallMaxResults).default(5),
});
export type RecallInput = z.infer<typeof recallInputSchema>;

export const recallResultSchema = z
  .object({
    document_id: idSchema('document'),
    passage_id: idSchema('passage'),
    title: z.string(),
    source_url: z.string().nullable(),
    snippet: z.string().describe('The passage’s best-matching fragment; matched words wrapped in <b>…</b>'),
    score: z.number().nonnegative().describe('Relevance; higher is better, comparable within one response'),
  })
  .meta({ id: 'RecallResult' });
export type RecallResult = z.infer<typeof recallResultSchema>;

export const citationSchema = z
  .object({
    ref: z.number().int().positive().describe('The [n] marker in `answer`; results[n-1]'),
    document_id: idSchema('document'),
    passage_id: idSchema('passage'),
    title: z.string(),
  })
  .meta({ id: 'Citation' });

export const recallResponseSchema = z
  .object({
    ok: z.literal(true),
    query: z.string(),
    results: z.array(recallResultSchema),
    answer: z.string().nullable().describe('Answer grounded only in `results`, citing them as [n]; null without a provider or passages'),
    citations: z.array(citationSchema).describe('The passages the answer cites'),
    answered_by: z.object({ provider: z.string(), model: z.string() }).nullable(),
    answer_error: z.string().nullable().describe('Why there is no answer although a provider is configured'),
    api: apiUsageSchema,
  })
  .meta({ id: 'RecallResponse' });
export type RecallResponse = z.infer<typeof recallResponseSchema>;

// ---------------------------------------------------------------------------------------------------------
// Brand score

export const brandProviders = ['openai', 'anthropic'] as const;
export type BrandProvider = (typeof brandProviders)[number];

/** Verdicts by score band (the rubric in services/recall/README.md). */
export const brandVerdicts = ['invisible', 'faint', 'emerging', 'known', 'prominent'] as const;
export type BrandVerdict = (typeof brandVerdicts)[number];

export const recommendationSeverities = ['critical', 'high', 'medium', 'low'] as const;
export type RecommendationSeverity = (typeof recommendationSeverities)[number];

export const brandScoreInputSchema = z.object({ brand: brandSchema, url: httpUrlSchema });
export type BrandScoreInput = z.infer<typeof brandScoreInputSchema>;

/** What one provider said, prompt by prompt; null where that prompt failed. */
export const probeSaidSchema = z.object({
  recognition: z
    .object({ knows: z.boolean(), confidence: z.number().min(0).max(1), summary: z.string() })
    .nullable()
    .describe('“Do you know this brand?”'),
  description: z
    .object({ description: z.string(), category: z.string(), competitors: z.array(z.string()) })
    .nullable()
    .describe('“What does this brand do?”'),
  category: z
    .object({ category: z.string(), brands: z.array(z.string()), named: z.boolean(), rank: z.number().int().positive().nullable() })
    .nullable()
    .describe('“Which brands would you recommend in this category?”, and whether this brand was among them'),
});

export const probeSchema = z
  .object({
    provider: z.enum(brandProviders),
    model: z.string(),
    knows: z.boolean().describe('The model recognises the brand'),
    signal_score: z.number().int().min(0).max(100).describe('This provider’s 0-100 score under the rubric'),
    status: z.enum(['ok', 'partial', 'failed']).describe('`partial`: some prompts failed; `failed`: no usable answer'),
    latency_ms: z.number().int().nonnegative(),
    error: z.string().nullable(),
    said: probeSaidSchema,
  })
  .meta({ id: 'BrandProbe' });
export type BrandProbe = z.infer<typeof probeSchema>;

export const recommendationSchema = z
  .object({ title: z.string(), severity: z.enum(recommendationSeverities), body: z.string() })
  .meta({ id: 'Recommendation' });
export type Recommendation = z.infer<typeof recommendationSchema>;

export const brandScoreResponseSchema = z
  .object({
    ok: z.literal(true),
    brand: z.string(),
    score: z.number().int().min(0).max(100),
    verdict: z.enum(brandVerdicts),
    zinger: z.string(),
    probes: z.array(probeSchema),
    recommendations: z.array(recommendationSchema),
    partial: z.boolean().describe('True when a provider failed and the score rests on the other alone'),
    api: apiUsageSchema,
  })
  .meta({ id: 'BrandScoreResponse' });
export type BrandScoreResponse = z.infer<typeof brandScoreResponseSchema>;

/**
 * A brand score as the organization keeps it: what was asked, the figure and verdict, and when, so a person
 * can compare this month's score with last month's. The providers' answers stay in the scoring's response.
 */
export const brandScoreRecordSchema = z
  .object({
    id: idSchema('brandScore'),
    object: z.literal('brand_score'),
    brand: z.string(),
    url: z.string(),
    score: z.number().int().min(0).max(100),
    verdict: z.enum(brandVerdicts),
    partial: z.boolean(),
    created_at: timestampSchema,
  })
  .meta({ id: 'BrandScoreRecord' });
export type BrandScoreRecord = z.infer<typeof brandScoreRecordSchema>;

export const brandScoreRecordPageSchema = pageSchema(brandScoreRecordSchema).meta({ id: 'BrandScoreRecordPage' });
export const listBrandScoresQuerySchema = listQuerySchema;
export type ListBrandScoresQuery = z.infer<typeof listBrandScoresQuerySchema>;

/** The data of the `recall.brand_scored` event. */
export const brandScoredEventDataSchema = z.object({
  brand: z.string(),
  url: z.string(),
  score: z.number().int(),
  verdict: z.enum(brandVerdicts),
  partial: z.boolean(),
  providers: z.array(z.object({ provider: z.enum(brandProviders), model: z.string(), status: z.string(), signal_score: z.number().int() })),
});

export const llmRecallResponseSchema = z.union([recallResponseSchema, brandScoreResponseSchema]);

// ---------------------------------------------------------------------------------------------------------
// Marketing audit (public, rate-limited per client address)

export const marketingAuditBodySchema = z
  .object({ url: httpUrlSchema.describe('Page to audit') })
  .strict()
  .meta({ id: 'MarketingAuditRequest' });
export type MarketingAuditBody = z.infer<typeof marketingAuditBodySchema>;

export const auditCheckSchema = z.object({
  id: z.string(),
  passed: z.boolean(),
  severity: z.enum(recommendationSeverities),
  message: z.string(),
});

export const marketingAuditSchema = z
  .object({
    ok: z.literal(true),
    url: z.string(),
    final_url: z.string().describe('After redirects'),
    status: z.number().int(),
    score: z.number().int().min(0).max(100),
    checks: z.array(auditCheckSchema),
    fetched_in_ms: z.number().int().nonnegative(),
    checked_at: timestampSchema.describe('When the page was fetched; audits of one URL are reused for a few minutes'),
    notice: z.string(),
  })
  .meta({ id: 'MarketingAudit' });
export type MarketingAudit = z.infer<typeof marketingAuditSchema>;

// ---------------------------------------------------------------------------------------------------------
// NATS operations, for the MCP service (service_recall, service_brand_score, service_add_knowledge_document)

/** The public marketing audit's limits per client address, unless the deployment sets others (PUBLIC_AUDIT_*). */
export const publicAuditDefaults = { limit: 10, windowSeconds: 3_600, cacheSeconds: 300 } as const;

/** The public marketing audit: no key, limited per client address; its answers are shared for a few minutes. */
export const publicMarketingAuditRoute: PublicRoute = {
  method: 'POST',
  path: '/api/public/marketing-audit',
  operationId: 'publicMarketingAudit',
  tags: ['marketing-audit'],
  summary: 'Audit a page for search and AI visibility (public, rate-limited)',
  description: `No API key. Limited to ${publicAuditDefaults.limit} audits per client address per ${publicAuditDefaults.windowSeconds} s unless the deployment sets other limits (429 rate_limited, with Retry-After). Private, loopback and link-local addresses are refused.`,
  body: marketingAuditBodySchema,
  responses: { 200: marketingAuditSchema, 429: errorEnvelopeSchema },
};

const knowledge = ['knowledge'];
const byDocumentId = documentIdParamsSchema;

export const recallRpc = nameOperations({
  recall: defineRpc('svc.recall.query', recallInputSchema, recallResponseSchema, 'read'),
  /** Probes both providers; `unavailable` (503) without one, `upstream_failed` (502) when both fail. */
  brandScore: defineRpc('svc.recall.brand_score', brandScoreInputSchema, brandScoreResponseSchema, 'read'),
  /** REST's one entry to both: `{query}` recalls, `{brand, url}` scores the brand. */
  llmRecall: defineRpc('svc.recall.llm_recall', llmRecallBodySchema, llmRecallResponseSchema, 'read', {
    http: {
      method: 'POST',
      path: '/api/v1/llm-recall',
      tags: ['recall'],
      summary: 'Recall over the knowledge base, or score a brand',
      description:
        'Send `{"query"}` for knowledge-base recall: ranked passages and, when a model provider is configured, an answer grounded ' +
        'in them with [n] citations. Send `{"brand", "url"}` for the brand score: OpenAI and Anthropic probed in parallel, scored by ' +
        'a fixed rubric. Neither form, or both mixed, is 400. No provider configured is 503; every provider failing is 502. ' +
        'With a test key, no provider is asked: the answer and the score come from a deterministic simulator and say so.',
      body: llmRecallBodySchema,
    },
  }),
  /** The marketing audit with an API key: not available yet (the public audit without a key is). */
  marketingAudit: defineRpc('svc.recall.marketing_audit', marketingAuditBodySchema, marketingAuditSchema, 'read', {
    http: {
      method: 'POST',
      path: '/api/v1/marketing-audit',
      tags: ['marketing-audit'],
      summary: 'Marketing audit with an API key (coming soon)',
      description: 'Not available yet: answers 501 coming_soon. Use POST /api/public/marketing-audit meanwhile.',
      body: marketingAuditBodySchema,
      comingSoon: true,
    },
    errors: ['coming_soon'],
  }),
  addDocument: defineRpc('svc.recall.documents.add', addDocumentInputSchema, documentSchema, 'read-write', {
    http: {
      method: 'POST',
      path: '/api/v1/knowledge/documents',
      tags: knowledge,
      summary: 'Add a document to the knowledge base',
      description:
        'The text is split into passages and indexed for recall at once. Text over 200,000 characters is 400; a body over 1 MB is 413. ' +
        'Send an `Idempotency-Key` header to make retries safe: the same key and body add one document.',
      body: createDocumentBodySchema,
      status: 201,
    },
    idempotent: 'documents.add',
  }),
  listDocuments: defineRpc('svc.recall.documents.list', listDocumentsQuerySchema, documentPageSchema, 'read', {
    http: {
      method: 'GET',
      path: '/api/v1/knowledge/documents',
      tags: knowledge,
      summary: 'List documents, newest first',
      query: listDocumentsQuerySchema,
    },
  }),
  getDocument: defineRpc('svc.recall.documents.get', byDocumentId, documentSchema, 'read', {
    http: {
      method: 'GET',
      path: '/api/v1/knowledge/documents/:id',
      tags: knowledge,
      summary: 'Get one document with its text',
      params: byDocumentId,
    },
  }),
  updateDocument: defineRpc(
    'svc.recall.documents.update',
    z.object({ id: idSchema('document'), changes: updateDocumentBodySchema }),
    documentSchema,
    'read-write',
    {
      http: {
        method: 'PATCH',
        path: '/api/v1/knowledge/documents/:id',
        tags: knowledge,
        summary: 'Change a document; a new title or text rebuilds its passages',
        params: byDocumentId,
        body: updateDocumentBodySchema,
        bodyField: 'changes',
      },
    },
  ),
  deleteDocument: defineRpc('svc.recall.documents.delete', byDocumentId, deletedDocumentSchema, 'read-write', {
    http: {
      method: 'DELETE',
      path: '/api/v1/knowledge/documents/:id',
      tags: knowledge,
      summary: 'Delete a document and its passages',
      params: byDocumentId,
    },
  }),
  /** The organization's earlier brand scores, newest first (for the console's history). */
  listBrandScores: defineRpc('svc.recall.brand_scores.list', listBrandScoresQuerySchema, brandScoreRecordPageSchema, 'read'),
});

import { type HttpApp, identityOf } from '@voice/kit';
import { brandScoreInputSchema, llmRecallBodySchema, llmRecallResponseSchema } from '@voice/proto';
import type { RecallDeps } from '../deps.js';
import { brandScoreOperation, recallOperation } from '../operations.js';

export function llmRecallRoutes(app: HttpApp, deps: RecallDeps): void {
  app.post(
    '/api/v1/llm-recall',
    {
      schema: {
        tags: ['recall'],
        summary: 'Recall over the knowledge base, or score a brand',
        description:
          'Send `{"query"}` for knowledge-base recall: ranked passages and, when a model provider is configured, an answer grounded ' +
          'in them with [n] citations. Send `{"brand", "url"}` for the brand score: OpenAI and Anthropic probed in parallel, scored by ' +
          'a fixed rubric. Neither form, or both mixed, is 400. No provider configured is 503; every provider failing is 502.',
        body: llmRecallBodySchema,
        response: { 200: llmRecallResponseSchema },
      },
      config: { scope: 'read', operationId: 'llmRecall' },
    },
    async (request) => {
      const identity = identityOf(request);
      const { query, brand, url, limit } = request.body;
      if (query !== undefined) return recallOperation(deps, identity, { query, limit: limit ?? 5 });
      // The body's refinement already insists on brand and url together; this parse narrows the types.
      return brandScoreOperation(deps, identity, brandScoreInputSchema.parse({ brand, url }));
    },
  );
}

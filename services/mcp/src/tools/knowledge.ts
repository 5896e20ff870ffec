import {
  brandScoreInputSchema,
  brandScoreResponseSchema,
  createDocumentBodySchema,
  documentSchema,
  recallInputSchema,
  recallResponseSchema,
  recallRpc,
} from '@voice/proto';
import { defineTool, readHints } from '../mcp/tool.js';

export const knowledgeTools = [
  defineTool({
    name: 'service_recall',
    title: 'Recall from the knowledge base',
    description:
      'Finds the passages of the organization’s knowledge base that answer a question, and, when a model provider is configured, an answer grounded in them with [n] citations.',
    scope: 'read',
    approval: false,
    annotations: { ...readHints, openWorldHint: true },
    input: recallInputSchema,
    output: recallResponseSchema,
    // A grounded answer waits on a model provider (recall's PROVIDER_TIMEOUT_MS, 20 s by default).
    run: (args, { call, deps }) => call(recallRpc.recall, args, { timeoutMs: Math.max(deps.env.RPC_TIMEOUT_MS, 60_000) }),
  }),
  defineTool({
    name: 'service_brand_score',
    title: 'Brand score',
    description:
      'Scores what two large language models know about a brand (0-100, a verdict, per-provider probes and recommendations). Takes as long as the slower provider.',
    scope: 'read',
    approval: false,
    // Asking the providers again can give another answer: read-only, but not idempotent.
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    input: brandScoreInputSchema,
    output: brandScoreResponseSchema,
    run: (args, { call, deps }) => call(recallRpc.brandScore, args, { timeoutMs: Math.max(deps.env.RPC_TIMEOUT_MS, 60_000) }),
  }),
  defineTool({
    name: 'service_add_knowledge_document',
    title: 'Add a knowledge-base document',
    description: 'Adds a document (plain text or Markdown, up to 200,000 characters) to the knowledge base that service_recall searches.',
    scope: 'read-write',
    approval: false,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    input: createDocumentBodySchema,
    output: documentSchema,
    run: (args, { call }) => call(recallRpc.addDocument, args),
  }),
];

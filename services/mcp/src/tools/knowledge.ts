import { createDocumentBodySchema, recallRpc } from '@voice/proto';
import type { McpDeps } from '../deps.js';
import { defineTool } from '../mcp/tool.js';

/** A grounded answer or a brand score waits on model providers (recall's PROVIDER_TIMEOUT_MS, 20 s by default). */
const waitOnProviders = (deps: McpDeps) => Math.max(deps.env.RPC_TIMEOUT_MS, 60_000);

export const knowledgeTools = [
  defineTool({
    name: 'service_recall',
    toolset: 'knowledge',
    title: 'Recall from the knowledge base',
    description:
      'Finds the passages of the organization’s knowledge base that answer a question, and, when a model provider is configured, an answer grounded in them with [n] citations.',
    operation: recallRpc.recall,
    annotations: { openWorldHint: true },
    timeoutMs: waitOnProviders,
  }),
  defineTool({
    name: 'service_brand_score',
    toolset: 'knowledge',
    title: 'Brand score',
    description:
      'Scores what two large language models know about a brand (0-100, a verdict, per-provider probes and recommendations). Takes as long as the slower provider.',
    // Asking the providers again can give another answer: read-only, but not idempotent.
    operation: recallRpc.brandScore,
    annotations: { idempotentHint: false, openWorldHint: true },
    timeoutMs: waitOnProviders,
  }),
  defineTool({
    name: 'service_add_knowledge_document',
    toolset: 'knowledge',
    title: 'Add a knowledge-base document',
    description: 'Adds a document (plain text or Markdown, up to 200,000 characters) to the knowledge base that service_recall searches.',
    operation: recallRpc.addDocument,
    input: createDocumentBodySchema,
  }),
];

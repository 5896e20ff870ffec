import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ApiError } from '@voice/kit';
import { type Identity, type McpSelection, type McpToolset, mcpToolsets, type Scope, scopeAllows } from '@voice/proto';
import { billingTools } from '../tools/billing.js';
import { knowledgeTools } from '../tools/knowledge.js';
import { leadTools } from '../tools/leads.js';
import { platformTools } from '../tools/platform.js';
import { sequenceTools } from '../tools/sequences.js';
import { telephonyTools } from '../tools/telephony.js';
import { workspaceTools } from '../tools/workspaces.js';
import { checkAgreesWithOperation, type ToolContext, type ToolDefinition, toolJsonSchema } from './tool.js';
import { invalidArguments, toolError } from './tool-errors.js';

/** Every tool, in the order of MCP-TOOLS.md. */
export const allTools: readonly ToolDefinition[] = [
  ...leadTools,
  ...telephonyTools,
  ...sequenceTools,
  ...billingTools,
  ...workspaceTools,
  ...knowledgeTools,
  ...platformTools,
];

/** No header, the bare URL: every toolset, read and write tools as the key allows. */
const everything: McpSelection = { toolsets: mcpToolsets, readonly: false };

function offered(definition: ToolDefinition, scope: Scope, selection: McpSelection): boolean {
  if (!selection.toolsets.includes(definition.toolset)) return false;
  return scopeAllows(selection.readonly ? 'read' : scope, definition.scope);
}

export interface CatalogEntry {
  definition: ToolDefinition;
  /** What tools/list sends, computed once: every request builds a new server, none rebuilds a schema. */
  listing: Tool;
}

export class ToolCatalog {
  private readonly entries = new Map<string, CatalogEntry>();

  constructor(tools: readonly ToolDefinition[] = allTools) {
    for (const definition of tools) {
      if (this.entries.has(definition.name)) throw new Error(`duplicate tool ${definition.name}`);
      checkAgreesWithOperation(definition);
      // The type says so, but a definition built by hand (a spread) could still name a toolset nobody selects.
      if (!mcpToolsets.includes(definition.toolset)) throw new Error(`tool ${definition.name}: unknown toolset ${definition.toolset}`);
      this.entries.set(definition.name, {
        definition,
        listing: {
          name: definition.name,
          title: definition.title,
          description: definition.description,
          inputSchema: toolJsonSchema(definition.input, 'input') as Tool['inputSchema'],
          outputSchema: toolJsonSchema(definition.output, 'output') as Tool['outputSchema'],
          annotations: { title: definition.title, ...definition.annotations },
        },
      });
    }
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * The tools a key of this scope may call in the selected toolsets: a read key, or a read-only selection,
   * never sees a writing tool.
   */
  list(identity: Pick<Identity, 'scope'>, selection: McpSelection = everything): Tool[] {
    return [...this.entries.values()].filter((entry) => offered(entry.definition, identity.scope, selection)).map((entry) => entry.listing);
  }

  /** Whether the tool is in the selected toolsets (a tool outside them is as unknown as a misspelt one). */
  selects(name: string, selection: McpSelection = everything): boolean {
    const entry = this.entries.get(name);
    return entry !== undefined && selection.toolsets.includes(entry.definition.toolset);
  }

  /** How many tools each toolset holds, for a key of this scope (the README's table is checked against it). */
  toolsetSizes(scope: Scope = 'read-write'): Record<McpToolset, number> {
    const sizes = Object.fromEntries(mcpToolsets.map((toolset) => [toolset, 0])) as Record<McpToolset, number>;
    for (const { definition } of this.entries.values()) if (scopeAllows(scope, definition.scope)) sizes[definition.toolset] += 1;
    return sizes;
  }

  listings(): Tool[] {
    return [...this.entries.values()].map((entry) => entry.listing);
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /**
   * Runs a tool. Business failures (bad arguments, scope, not found, a service down) come back as
   * `isError` results that say what to do next, never as protocol errors.
   */
  async call(name: string, args: unknown, context: ToolContext, selection: McpSelection = everything): Promise<CallToolResult> {
    const entry = this.entries.get(name);
    if (!entry) throw new Error(`unknown tool ${name}`);
    const { definition } = entry;
    try {
      if (!scopeAllows(context.identity.scope, definition.scope)) {
        throw new ApiError('forbidden_scope', `${name} changes data and this key is read-only`);
      }
      if (selection.readonly && definition.scope !== 'read') {
        throw new ApiError('forbidden_scope', `${name} changes data and this connection is read-only (X-MCP-Readonly or a /readonly URL)`);
      }
      const parsed = definition.input.safeParse(args ?? {});
      if (!parsed.success) throw invalidArguments(parsed.error);
      const result = definition.output.parse(await definition.run(parsed.data, context)) as Record<string, unknown>;
      return { structuredContent: result, content: [{ type: 'text', text: JSON.stringify(result) }] };
    } catch (error) {
      if (!(error instanceof ApiError)) context.deps.logger.error({ err: error, tool: name }, 'tool failed');
      return toolError(error, context.identity.request_id);
    }
  }
}

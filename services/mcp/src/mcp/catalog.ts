import { type CallToolResult, ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { ApiError } from '@voice/kit';
import { type Identity, scopeAllows } from '@voice/proto';
import { billingTools } from '../tools/billing.js';
import { knowledgeTools } from '../tools/knowledge.js';
import { leadTools } from '../tools/leads.js';
import { platformTools } from '../tools/platform.js';
import { sequenceTools } from '../tools/sequences.js';
import { telephonyTools } from '../tools/telephony.js';
import { workspaceTools } from '../tools/workspaces.js';
import { outputSchemas } from './output-schema.js';
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

export interface CatalogEntry {
  definition: ToolDefinition;
  /** What tools/list sends, computed once: every request builds a new server, none rebuilds a schema. */
  listing: Tool;
}

export class ToolCatalog {
  private readonly entries = new Map<string, CatalogEntry>();

  constructor(tools: readonly ToolDefinition[] = allTools) {
    const outputs = outputSchemas(tools);
    for (const definition of tools) {
      if (this.entries.has(definition.name)) throw new Error(`duplicate tool ${definition.name}`);
      checkAgreesWithOperation(definition);
      this.entries.set(definition.name, {
        definition,
        listing: {
          name: definition.name,
          title: definition.title,
          description: definition.description,
          inputSchema: toolJsonSchema(definition.input, 'input') as Tool['inputSchema'],
          outputSchema: outputs.get(definition.name) as Tool['outputSchema'],
          // The title is the tool's own (MCP 2025-06-18 on); annotations carry only the four hints.
          annotations: { ...definition.annotations },
          ...(definition.startTask ? { execution: { taskSupport: 'optional' as const } } : {}),
        },
      });
    }
  }

  get size(): number {
    return this.entries.size;
  }

  /** The tools a key of this scope may call: a read key never sees a writing tool. */
  list(identity: Identity): Tool[] {
    return [...this.entries.values()].filter((entry) => scopeAllows(identity.scope, entry.definition.scope)).map((entry) => entry.listing);
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
  async call(name: string, args: unknown, context: ToolContext): Promise<CallToolResult> {
    const definition = this.definition(name);
    try {
      const result = definition.output.parse(await definition.run(this.checkedArguments(definition, args, context), context)) as Record<
        string,
        unknown
      >;
      return { structuredContent: result, content: [{ type: 'text', text: JSON.stringify(result) }] };
    } catch (error) {
      if (!(error instanceof ApiError)) context.deps.logger.error({ err: error, tool: name }, 'tool failed');
      return toolError(error, context.identity.request_id);
    }
  }

  /**
   * Starts a tool as an MCP task and returns the task id. A tool without task support is -32601, as the
   * spec asks; a call refused before any task exists (arguments, scope, not found, no channel) is a
   * JSON-RPC error carrying the same `code: what happened; what to do next` text as a tool error.
   */
  async startTask(name: string, args: unknown, context: ToolContext): Promise<string> {
    const definition = this.definition(name);
    if (!definition.startTask) {
      throw new McpError(ErrorCode.MethodNotFound, `${name} does not run as a task (no execution.taskSupport); call it without task.`);
    }
    try {
      return await definition.startTask(this.checkedArguments(definition, args, context), context);
    } catch (error) {
      if (!(error instanceof ApiError)) context.deps.logger.error({ err: error, tool: name }, 'tool failed');
      const text = toolError(error, context.identity.request_id).content[0]?.text ?? 'internal';
      // Not an McpError, whose message would start with "MCP error -32602: ": the agent reads this one as is.
      throw Object.assign(new Error(text), { code: ErrorCode.InvalidParams, data: { code: text.slice(0, text.indexOf(':')) } });
    }
  }

  private definition(name: string): ToolDefinition {
    const entry = this.entries.get(name);
    if (!entry) throw new Error(`unknown tool ${name}`);
    return entry.definition;
  }

  /** The caller's scope allows the tool and the arguments are its input, or an ApiError says which not. */
  private checkedArguments(definition: ToolDefinition, args: unknown, context: ToolContext): Record<string, unknown> {
    if (!scopeAllows(context.identity.scope, definition.scope)) {
      throw new ApiError('forbidden_scope', `${definition.name} changes data and this key is read-only`);
    }
    const parsed = definition.input.safeParse(args ?? {});
    if (!parsed.success) throw invalidArguments(parsed.error);
    return parsed.data;
  }
}

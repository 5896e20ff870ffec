import { type CallToolResult, ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { ApiError } from '@voice/kit';
import { type Identity, isTestOrg, type McpSelection, type McpToolset, mcpToolsets, type Scope, scopeAllows } from '@voice/proto';
import { toolUiMeta } from '../apps/index.js';
import { billingTools } from '../tools/billing.js';
import { knowledgeTools } from '../tools/knowledge.js';
import { leadTools } from '../tools/leads.js';
import { platformTools } from '../tools/platform.js';
import { sequenceTools } from '../tools/sequences.js';
import { telephonyTools } from '../tools/telephony.js';
import { testingTools } from '../tools/testing.js';
import { workspaceTools } from '../tools/workspaces.js';
import { fullOutputSchema, outputSchemas } from './output-schema.js';
import {
  checkAgreesWithOperation,
  isTestOnlyTool,
  type JsonObject,
  type ToolContext,
  type ToolDefinition,
  toolJsonSchema,
} from './tool.js';
import { invalidArguments, toolError } from './tool-errors.js';

/** Every tool, in the order of MCP-TOOLS.md, then test mode's helpers. */
export const allTools: readonly ToolDefinition[] = [
  ...leadTools,
  ...telephonyTools,
  ...sequenceTools,
  ...billingTools,
  ...workspaceTools,
  ...knowledgeTools,
  ...platformTools,
  ...testingTools,
];

/** No header, the bare URL: every toolset, read and write tools as the key allows. */
const everything: McpSelection = { toolsets: mcpToolsets, readonly: false };

/**
 * Who asks, as far as the catalogue cares: the scope, and the organization, whose mode decides whether test
 * helpers exist for it. Without an organization the caller counts as live: test helpers are never offered
 * to a caller that does not say it is a test twin.
 */
export type Caller = Pick<Identity, 'scope'> & Partial<Pick<Identity, 'org_id'>>;

/** Whether the tool exists for the caller's mode: a test helper for test credentials only (mode.ts). */
function inMode(definition: ToolDefinition, caller: Caller): boolean {
  return !isTestOnlyTool(definition) || (caller.org_id !== undefined && isTestOrg(caller.org_id));
}

function offered(definition: ToolDefinition, caller: Caller, selection: McpSelection): boolean {
  if (!selection.toolsets.includes(definition.toolset) || !inMode(definition, caller)) return false;
  return scopeAllows(selection.readonly ? 'read' : caller.scope, definition.scope);
}

export interface ListOptions {
  /** The client renders MCP Apps: a tool an App shows says which (`_meta.ui.resourceUri`). */
  apps?: boolean;
}

function withApp(listing: Tool, options: ListOptions): Tool {
  const meta = options.apps ? toolUiMeta(listing.name) : undefined;
  return meta ? { ...listing, _meta: { ...listing._meta, ...meta } } : listing;
}

export interface CatalogEntry {
  definition: ToolDefinition;
  /** What tools/list sends, computed once: every request builds a new server, none rebuilds a schema. */
  listing: Tool;
  /** What tools/list sends to a 2026-07-28 client: full output schemas (`fullOutputSchema`), no task support. */
  modernListing: Tool;
}

export class ToolCatalog {
  private readonly entries = new Map<string, CatalogEntry>();
  private readonly outputsBySelection = new Map<string, Map<string, JsonObject>>();

  constructor(tools: readonly ToolDefinition[] = allTools) {
    const outputs = outputSchemas(tools);
    for (const definition of tools) {
      if (this.entries.has(definition.name)) throw new Error(`duplicate tool ${definition.name}`);
      // The type says so, but a definition built by hand (a spread) could still name a toolset nobody selects.
      if (!mcpToolsets.includes(definition.toolset)) throw new Error(`tool ${definition.name}: unknown toolset ${definition.toolset}`);
      checkAgreesWithOperation(definition);
      const common = {
        name: definition.name,
        title: definition.title,
        description: definition.description,
        inputSchema: toolJsonSchema(definition.input, 'input') as Tool['inputSchema'],
        // The title is the tool's own (MCP 2025-06-18 on); annotations carry only the four hints.
        annotations: { ...definition.annotations },
      };
      this.entries.set(definition.name, {
        definition,
        listing: {
          ...common,
          outputSchema: outputs.get(definition.name) as Tool['outputSchema'],
          ...(definition.startTask ? { execution: { taskSupport: 'optional' as const } } : {}),
        },
        modernListing: { ...common, outputSchema: fullOutputSchema(definition) as Tool['outputSchema'] },
      });
    }
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * The tools a key of this scope may call in the selected toolsets: a read key, or a read-only selection,
   * never sees a writing tool, and a live credential never sees a test helper.
   */
  list(caller: Caller, selection: McpSelection = everything, options: ListOptions = {}): Tool[] {
    const outputs = this.outputsFor(selection.toolsets);
    return [...this.entries.values()]
      .filter((entry) => offered(entry.definition, caller, selection))
      .map((entry) => withApp({ ...entry.listing, outputSchema: outputs.get(entry.definition.name) as Tool['outputSchema'] }, options));
  }

  /** The same tools as `list`, as a 2026-07-28 client gets them (`CatalogEntry.modernListing`). */
  listModern(caller: Caller, selection: McpSelection = everything, options: ListOptions = {}): Tool[] {
    return [...this.entries.values()]
      .filter((entry) => offered(entry.definition, caller, selection))
      .map((entry) => withApp(entry.modernListing, options));
  }

  /**
   * Output schemas spell each record out in one reading tool and point to it elsewhere (output-schema.ts), so
   * a selection of toolsets gets its own, whose pointers stay inside the tools it lists; one per selection.
   */
  private outputsFor(toolsets: readonly McpToolset[]): Map<string, JsonObject> {
    const key = [...toolsets].sort().join(',');
    let outputs = this.outputsBySelection.get(key);
    if (!outputs) {
      const selected = [...this.entries.values()].map((entry) => entry.definition).filter((tool) => toolsets.includes(tool.toolset));
      outputs = outputSchemas(selected);
      this.outputsBySelection.set(key, outputs);
    }
    return outputs;
  }

  /**
   * Whether the tool is in the selected toolsets and exists for the caller's mode (a tool outside them, or a
   * test helper asked for by a live credential, is as unknown as a misspelt one).
   */
  selects(name: string, caller: Caller, selection: McpSelection = everything): boolean {
    const entry = this.entries.get(name);
    return entry !== undefined && selection.toolsets.includes(entry.definition.toolset) && inMode(entry.definition, caller);
  }

  /** How many tools each toolset holds, for a key of this scope (the README's table is checked against it). */
  toolsetSizes(scope: Scope = 'read-write'): Record<McpToolset, number> {
    const sizes = Object.fromEntries(mcpToolsets.map((toolset) => [toolset, 0])) as Record<McpToolset, number>;
    for (const { definition } of this.entries.values()) if (scopeAllows(scope, definition.scope)) sizes[definition.toolset] += 1;
    return sizes;
  }

  /** Whether the tool is a selected approval tool (which a client may be shown as a URL elicitation). */
  isApprovalTool(name: string, caller: Caller, selection: McpSelection = everything): boolean {
    return this.selects(name, caller, selection) && this.definition(name).approval;
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
    const definition = this.definition(name);
    try {
      const checked = this.checkedArguments(definition, args, context, selection);
      const result = (await definition.run(checked, context)) as Record<string, unknown>;
      return { structuredContent: result, content: [{ type: 'text', text: JSON.stringify(result) }] };
    } catch (error) {
      if (!(error instanceof ApiError)) context.deps.logger.error({ err: error, tool: name }, 'tool failed');
      return toolError(error, context.identity.request_id);
    }
  }

  /**
   * Starts a tool as an MCP task and returns the task id. A tool without task support is -32601, as the
   * spec asks; a call refused before any task exists (arguments, scope, not found, a conflict) is a
   * JSON-RPC error carrying the same `code: what happened; what to do next` text as a tool error.
   */
  async startTask(name: string, args: unknown, context: ToolContext, selection: McpSelection = everything): Promise<string> {
    const definition = this.definition(name);
    if (!definition.startTask) {
      throw new McpError(ErrorCode.MethodNotFound, `${name} does not run as a task (no execution.taskSupport); call it without task.`);
    }
    try {
      return await definition.startTask(this.checkedArguments(definition, args, context, selection), context);
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

  /**
   * The caller's scope and the connection's selection allow the tool and the arguments are its input, or an
   * ApiError says which not.
   */
  private checkedArguments(
    definition: ToolDefinition,
    args: unknown,
    context: ToolContext,
    selection: McpSelection,
  ): Record<string, unknown> {
    if (!scopeAllows(context.identity.scope, definition.scope)) {
      throw new ApiError('forbidden_scope', `${definition.name} changes data and this key is read-only`);
    }
    if (selection.readonly && definition.scope !== 'read') {
      throw new ApiError(
        'forbidden_scope',
        `${definition.name} changes data and this connection is read-only (X-MCP-Readonly or a /readonly URL)`,
      );
    }
    const parsed = definition.input.safeParse(args ?? {});
    if (!parsed.success) throw invalidArguments(parsed.error);
    return parsed.data;
  }
}

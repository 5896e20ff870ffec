import type { Identity, RpcDefinition, Scope } from '@voice/proto';
import { z } from 'zod';
import type { McpDeps } from '../deps.js';

/** The four MCP tool hints (https://modelcontextprotocol.io/specification, "Tool annotations"), all set. */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** What a tool handler gets: the caller as the gateway signed it, and the service's connections. */
export interface ToolContext {
  identity: Identity;
  deps: McpDeps;
  call<D extends RpcDefinition>(rpc: D, input: z.input<D['input']>, options?: { timeoutMs?: number }): Promise<z.output<D['output']>>;
}

export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  scope: Scope;
  /** The tool only asks for a person's approval (MCP-TOOLS.md); it never acts by itself. */
  approval: boolean;
  annotations: ToolAnnotations;
  input: I;
  output: O;
  run(args: z.output<I>, context: ToolContext): Promise<z.input<O>>;
}

/** Hints of a tool that only reads: safe to call again, touches nothing. */
export const readHints: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(tool: ToolDefinition<I, O>): ToolDefinition {
  // Unknown arguments are refused rather than silently dropped: a misspelt filter must not widen a list.
  return { ...tool, input: tool.input.strict() } as unknown as ToolDefinition;
}

type JsonObject = Record<string, unknown>;

/**
 * Replaces every `$ref` into `definitions` with the definition itself: tool schemas are self-contained.
 * The records are not recursive; a cycle would be a mistake, and fails loudly at start.
 */
function inlineRefs(node: unknown, definitions: JsonObject, expanding: readonly string[] = []): unknown {
  if (Array.isArray(node)) return node.map((item) => inlineRefs(item, definitions, expanding));
  if (node === null || typeof node !== 'object') return node;
  const object = node as JsonObject;
  const ref = object.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/definitions/')) {
    const name = ref.slice('#/definitions/'.length);
    if (expanding.includes(name)) throw new Error(`recursive schema ${name} cannot be inlined`);
    const { $ref: _ref, ...rest } = object;
    return inlineRefs({ ...(definitions[name] as JsonObject), ...rest }, definitions, [...expanding, name]);
  }
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, inlineRefs(value, definitions, expanding)]));
}

/** Formats JSON Schema names itself: zod's long equivalent regexes add nothing but size. */
const namedFormats = new Set(['date-time', 'date', 'email', 'uri']);

function dropFormatPatterns(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(dropFormatPatterns);
  if (node === null || typeof node !== 'object') return node;
  const object = node as JsonObject;
  const drop = typeof object.format === 'string' && namedFormats.has(object.format);
  return Object.fromEntries(
    Object.entries(object)
      .filter(([key]) => !(drop && key === 'pattern'))
      .map(([key, value]) => [key, dropFormatPatterns(value)]),
  );
}

/**
 * The JSON Schema an MCP client sees: draft-07 (what the SDK's client validates with), the root an object,
 * records inlined rather than referenced.
 */
export function toolJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const generated = z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' }) as JsonObject;
  const { definitions = {}, ...root } = generated as JsonObject & { definitions?: JsonObject };
  // Tool listings go into agents' context windows; the zod schemas still validate every call in full.
  return dropFormatPatterns(inlineRefs(root, definitions)) as JsonObject;
}

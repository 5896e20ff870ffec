import { type Identity, isTestOnlyToolset, type McpToolset, type RpcDefinition, type Scope } from '@voice/proto';
import { z } from 'zod';
import type { McpDeps } from '../deps.js';
import { inToolTerms } from './tool-errors.js';

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
  /**
   * The person an approval this call asks for is bound to from its creation: set when the call will show the
   * approval as a URL elicitation, so nobody else can decide it in the console, not even in the first moment.
   */
  bindApprovalTo?: string;
  call<D extends RpcDefinition>(rpc: D, input: z.input<D['input']>, options?: { timeoutMs?: number }): Promise<z.output<D['output']>>;
}

/** The context of one call: its NATS calls go out as the caller (and `bindApprovalTo`, when given). */
export function toolContext(deps: McpDeps, identity: Identity, bindApprovalTo?: string): ToolContext {
  return {
    identity,
    deps,
    ...(bindApprovalTo ? { bindApprovalTo } : {}),
    call: (rpc, input, options) => deps.bus.call(rpc, identity, input, options),
  };
}

/**
 * A tool as the catalogue holds it. Built by `defineTool` (or `approvalTool`), which take the scope, the
 * approval flag, the output and usually the input from the operation the tool runs; the catalogue checks
 * at start that a tool still agrees with its operation (`checkAgreesWithOperation`).
 */
export interface ToolDefinition {
  name: string;
  /** The one toolset it belongs to (`X-MCP-Toolsets`, `/api/mcp/x/{toolsets}`). */
  toolset: McpToolset;
  title: string;
  description: string;
  /** The operation the tool runs or asks approval for; absent only for the MCP service's own tools. */
  operation?: RpcDefinition;
  scope: Scope;
  /** The tool only asks for a person's approval (MCP-TOOLS.md); it never acts by itself. */
  approval: boolean;
  annotations: ToolAnnotations;
  input: z.ZodObject;
  output: z.ZodType;
  /**
   * Runs the tool; resolves to its output, already checked against `output`, once: an operation's result is
   * checked by the bus as it arrives (`RpcCaller`), a local tool's and an approval tool's by their definition.
   */
  run(args: Record<string, unknown>, context: ToolContext): Promise<unknown>;
  /**
   * Set for a tool that may run as an MCP task (`execution.taskSupport: "optional"`, the approval tools):
   * starts it with validated arguments and returns the task id, which `tasks/get` and `tasks/result` then
   * answer from the database on any replica.
   */
  startTask?(args: Record<string, unknown>, context: ToolContext): Promise<string>;
}

/**
 * The hints a tool states. `readOnlyHint` follows from the scope and `destructiveHint` from approval (only
 * approval tools destroy), so neither is stated; a reading tool is idempotent and no tool reaches outside
 * the platform unless it says so.
 */
export type StatedHints = Partial<Pick<ToolAnnotations, 'idempotentHint' | 'openWorldHint'>>;

interface ToolText {
  name: string;
  toolset: McpToolset;
  title: string;
  description: string;
  annotations?: StatedHints;
}

/**
 * A tool that runs one operation: its input, output and scope are the operation's. A tool whose arguments
 * differ (`call_id` for `id`, a default `source`) gives its own `input` and maps it with `rpcInput`.
 */
interface OperationTool<D extends RpcDefinition, I extends z.ZodObject> extends ToolText {
  operation: D;
  input?: I;
  /**
   * The operation's input from the tool's arguments; may refuse arguments that mean nothing. Omitted when
   * the arguments already are that input (the tool's schema may still describe them better for an agent).
   */
  rpcInput?(args: z.output<I>): z.input<D['input']>;
  /** How long to wait for the operation, when longer than the bus's default. */
  timeoutMs?(deps: McpDeps): number;
}

/** One of the MCP service's own tools, with no operation on the bus behind it. */
interface LocalTool<I extends z.ZodObject, O extends z.ZodType> extends ToolText {
  scope: Scope;
  input: I;
  output: O;
  run(args: z.output<I>, context: ToolContext): Promise<z.input<O>>;
}

export function toolAnnotations(scope: Scope, approval: boolean, stated: StatedHints = {}): ToolAnnotations {
  const readOnlyHint = scope === 'read';
  return {
    readOnlyHint,
    destructiveHint: approval,
    idempotentHint: stated.idempotentHint ?? readOnlyHint,
    openWorldHint: stated.openWorldHint ?? false,
  };
}

function toolText(tool: ToolText): Pick<ToolDefinition, 'name' | 'toolset' | 'title' | 'description'> {
  return { name: tool.name, toolset: tool.toolset, title: tool.title, description: tool.description };
}

// Unknown arguments are refused rather than silently dropped: a misspelt filter must not widen a list.
function strictInput(input: z.ZodType, name: string): z.ZodObject {
  if (!(input instanceof z.ZodObject)) throw new Error(`tool ${name}: its arguments must be an object schema`);
  return input.strict();
}

export function defineTool<D extends RpcDefinition, I extends z.ZodObject = Extract<D['input'], z.ZodObject>>(
  tool: OperationTool<D, I>,
): ToolDefinition {
  const { operation, timeoutMs } = tool;
  // Without a mapping the arguments are the operation's input: the tool's schema is the operation's, or a
  // re-described copy of it.
  const rpcInput = tool.rpcInput ?? ((args: z.output<I>) => args as z.input<D['input']>);
  return {
    ...toolText(tool),
    operation,
    scope: operation.scope,
    approval: false,
    annotations: toolAnnotations(operation.scope, false, tool.annotations),
    input: strictInput(tool.input ?? operation.input, tool.name),
    output: operation.output,
    // The bus parses the reply with `operation.output`: the result is the tool's checked output as it comes.
    run: async (args, { call, deps }) => {
      const input = rpcInput(args as z.output<I>);
      try {
        return await call(operation, input, timeoutMs ? { timeoutMs: timeoutMs(deps) } : {});
      } catch (error) {
        throw inToolTerms(error, args, input);
      }
    },
  };
}

export function defineLocalTool<I extends z.ZodObject, O extends z.ZodType>(tool: LocalTool<I, O>): ToolDefinition {
  return {
    ...toolText(tool),
    scope: tool.scope,
    approval: false,
    annotations: toolAnnotations(tool.scope, false, tool.annotations),
    input: strictInput(tool.input, tool.name),
    output: tool.output,
    run: async (args, context) => tool.output.parse(await tool.run(args as z.output<I>, context)),
  };
}

/** Whether the tool runs a test helper (a `testOnly` operation): offered to test credentials only. */
export function isTestOnlyTool(tool: Pick<ToolDefinition, 'operation'>): boolean {
  return tool.operation?.testOnly === true;
}

/**
 * Throws when a tool contradicts the operation it runs: another scope, a `readOnlyHint` that is not its
 * scope's, or an approval flag that differs (a tool that ran an approval operation directly would skip the
 * person); or when its toolset says otherwise than its operation about test mode: a test helper belongs in
 * the test-only toolset (`testing`), and that toolset holds test helpers only, so hiding the toolset from
 * live credentials hides exactly the tools that would answer them `not_found`. The catalogue runs it for
 * every tool when it is built, so a disagreement stops the service.
 */
export function checkAgreesWithOperation(tool: ToolDefinition): void {
  const problems: string[] = [];
  if (tool.annotations.readOnlyHint !== (tool.scope === 'read')) {
    problems.push(`readOnlyHint ${tool.annotations.readOnlyHint} does not match its scope ${tool.scope}`);
  }
  if (tool.operation) {
    const { subject, scope, approval } = tool.operation;
    if (tool.scope !== scope) problems.push(`scope ${tool.scope} differs from operation ${subject}'s scope ${scope}`);
    if (tool.approval !== approval) problems.push(`approval ${tool.approval} differs from operation ${subject}'s approval ${approval}`);
  } else if (tool.approval) {
    problems.push('asks for approval but names no operation to run once approved');
  }
  if (isTestOnlyTool(tool) && !isTestOnlyToolset(tool.toolset)) {
    problems.push(`runs test helper ${tool.operation?.subject} but is in toolset ${tool.toolset}, not a test-only one (testing)`);
  }
  if (!isTestOnlyTool(tool) && isTestOnlyToolset(tool.toolset)) {
    problems.push(`is in the test-only toolset ${tool.toolset} but runs no test helper (a testOnly operation)`);
  }
  if (problems.length > 0) throw new Error(`tool ${tool.name}: ${problems.join('; ')}`);
}

export type JsonObject = Record<string, unknown>;

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
 * Keywords that constrain only values of one type (or only annotate), so `{type: T, …these}` or null means
 * exactly `{type: [T, "null"], …these}`: a null is never checked against them.
 */
const typeOnlyKeywords = new Set([
  'type',
  ...['pattern', 'minLength', 'maxLength', 'format'],
  ...['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  ...['items', 'minItems', 'maxItems', 'uniqueItems'],
  ...['properties', 'required', 'additionalProperties', 'propertyNames', 'minProperties', 'maxProperties'],
  ...['description', 'default', 'title', 'examples'],
]);

/** `anyOf: [{type: T, …}, {type: "null"}]` as the equivalent `{type: [T, "null"], …}`, 40 characters shorter. */
function compactNullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compactNullable);
  if (node === null || typeof node !== 'object') return node;
  const object = Object.fromEntries(Object.entries(node as JsonObject).map(([key, value]) => [key, compactNullable(value)]));
  const { anyOf, ...outer } = object as JsonObject & { anyOf?: JsonObject[] };
  if (!Array.isArray(anyOf) || anyOf.length !== 2 || anyOf[1]?.type !== 'null' || Object.keys(anyOf[1]).length !== 1) return object;
  const [value] = anyOf as [JsonObject];
  const mergeable = typeof value.type === 'string' && Object.keys(value).every((key) => typeOnlyKeywords.has(key));
  if (!mergeable || Object.keys(outer).some((key) => !typeOnlyKeywords.has(key))) return object;
  return { ...value, ...outer, type: [value.type, 'null'] };
}

/**
 * The JSON Schema an MCP client sees: the root an object, records inlined rather than referenced, in
 * keywords that mean the same in draft-07 (what the SDK's client validates with) and 2020-12 (MCP's default
 * dialect from 2025-11-25), so no `$schema` needs to say which.
 */
export function toolJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const generated = z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' }) as JsonObject;
  const { definitions = {}, $schema: _dialect, ...root } = generated as JsonObject & { definitions?: JsonObject };
  // MCP wants an object at the root: a union of object records (an approval tool's output) says so too.
  const object = root.type === undefined && (root.oneOf || root.anyOf) ? { type: 'object', ...root } : root;
  // Tool listings go into agents' context windows; the zod schemas still validate every call in full.
  return compactNullable(dropFormatPatterns(inlineRefs(object, definitions))) as JsonObject;
}

import { type JsonObject, type ToolDefinition, toolJsonSchema } from './tool.js';

/**
 * How deep an output schema spells out fields, each object and each array taking a level: a record's own
 * fields, and those of an object it holds directly (a usage's `monthly`); the items of a list inside a
 * record (an invoice's lines) are `{type: "object"}`. A page's items are its records, one level deeper.
 */
const describedLevels = 2;

/**
 * The output schema of every tool, lean: `tools/list` goes into agents' context windows, and the list of
 * all tools must stay under 60,000 characters (test/tools.test.ts). Two rules make it so:
 *
 * - A schema says what a result looks like (field names, types, enums, constants, which fields may be
 *   null), not how an input is checked: patterns, formats, lengths, bounds, defaults, `required`,
 *   `additionalProperties` and field descriptions go. Every result is still checked in full against the
 *   tool's zod schema before it is sent, and satisfies the lean schema a client validates it with.
 * - A record (an object with an `object` constant, e.g. a lead or a call) has its fields spelt out once,
 *   in the first reading tool that returns it (a list's items or a get's result). Anywhere else, in a
 *   writing tool's result or inside another record, it is its `id` and `object` and a description naming
 *   that tool. A cross-tool `$ref` would say the same more formally, but an MCP client resolves no
 *   reference outside the tool's own schema (the SDK's client compiles each output schema alone).
 *
 * Computed over the tools listed together, so that every tool a schema names is in the same list: a list
 * of fewer tools (a toolset) needs its own `outputSchemas` of those tools (a `ToolCatalog` of them). With
 * every tool, two references cross the files of src/tools/: `service_get_lead`'s enrollments and calls.
 */
export function outputSchemas(tools: readonly ToolDefinition[]): Map<string, JsonObject> {
  const full = new Map(tools.map((tool) => [tool.name, toolJsonSchema(tool.output, 'output')]));
  // Records are told apart by their whole generated schema: a lead and a lead with its notes differ.
  /** A record's JSON → the reading tool that spells its fields out. */
  const homes = new Map<string, string>();
  for (const tool of tools.filter((candidate) => candidate.scope === 'read')) {
    const schema = full.get(tool.name) as JsonObject;
    const data = (schema.properties as JsonObject | undefined)?.data as JsonObject | undefined;
    for (const record of [schema, data?.type === 'array' ? data.items : undefined]) {
      if (recordName(record) && !homes.has(JSON.stringify(record))) homes.set(JSON.stringify(record), tool.name);
    }
  }
  return new Map(
    tools.map((tool) => {
      const schema = full.get(tool.name) as JsonObject;
      const reference = (node: JsonObject): JsonObject | undefined => {
        const home = homes.get(JSON.stringify(node));
        return home && home !== tool.name ? recordReference(node, home, node === schema) : undefined;
      };
      const page = ((schema.properties as JsonObject | undefined)?.data as JsonObject | undefined)?.type === 'array';
      const shape = resultShape(schema, describedLevels + (page ? 1 : 0), reference);
      // MCP wants an object at the root, a union of records (an approval tool's output) included.
      return [tool.name, shape.type === undefined ? { type: 'object', ...shape } : shape];
    }),
  );
}

function recordName(node: unknown): string | undefined {
  const object = ((node as JsonObject | undefined)?.properties as JsonObject | undefined)?.object as JsonObject | undefined;
  return typeof object?.const === 'string' ? object.const : undefined;
}

/** A record spelt out elsewhere; a tool's whole result (a written record) keeps its `id` and `object`. */
function recordReference(node: JsonObject, home: string, whole: boolean): JsonObject {
  const name = recordName(node) as string;
  const description = `${name}: see ${home}`;
  if (!whole) return { type: 'object', description };
  return { type: 'object', description, properties: { id: { type: 'string' }, object: { const: name } } };
}

/** What a result looks like, from the generated JSON Schema of its zod schema (see `outputSchemas`). */
export function resultShape(
  node: JsonObject,
  levels: number,
  reference: (node: JsonObject) => JsonObject | undefined = () => undefined,
): JsonObject {
  const referenced = reference(node);
  if (referenced) return referenced;
  const options = (node.anyOf ?? node.oneOf) as JsonObject[] | undefined;
  if (Array.isArray(options)) return unionShape(options.map((option) => resultShape(option, levels, reference)));
  if (Array.isArray(node.enum)) return { enum: node.enum };
  if (node.const !== undefined) return { const: node.const };
  if (node.type === undefined) return {};
  const types = [node.type].flat();
  const shape: JsonObject = { type: node.type };
  if (types.includes('array') && node.items && typeof node.items === 'object') {
    shape.items = resultShape(node.items as JsonObject, levels - 1, reference);
  }
  if (types.includes('object') && node.properties && levels > 0) {
    const properties = Object.entries(node.properties as JsonObject).map(([key, value]) => [
      key,
      resultShape(value as JsonObject, levels - 1, reference),
    ]);
    shape.properties = Object.fromEntries(properties);
  }
  return shape;
}

/** `anyOf` of bare types is one `type` list, of enums and null one `enum`: the same values, fewer characters. */
function unionShape(options: JsonObject[]): JsonObject {
  const only = (option: JsonObject, key: string) => Object.keys(option).length === 1 && option[key] !== undefined;
  if (options.every((option) => only(option, 'type'))) {
    const types = [...new Set(options.flatMap((option) => option.type as string | string[]))];
    return { type: types.length === 1 ? types[0] : types };
  }
  if (options.every((option) => only(option, 'enum') || only(option, 'const') || (only(option, 'type') && option.type === 'null'))) {
    return { enum: options.flatMap((option) => (option.enum as unknown[]) ?? (option.type === 'null' ? [null] : [option.const])) };
  }
  return { anyOf: options };
}

/**
 * The output schemas of the 2026-07-28 era: every record spelt out in full, no pointers to other tools. A
 * record that a result holds more than once (a lead's calls and enrollments, an approval tool's union) is
 * given once in the tool's own `$defs` and referenced there, which that era's clients resolve; a reference
 * across tools is still not possible, because clients compile each tool's schema alone (the v2 SDK's client
 * does, `Client._compileOutputValidator`), so a record used by two tools is spelt out in both.
 */
export function fullOutputSchema(tool: ToolDefinition): JsonObject {
  const shape = resultShape(toolJsonSchema(tool.output, 'output'), Number.POSITIVE_INFINITY);
  const root = shape.type === undefined ? { type: 'object', ...shape } : shape;
  const seen = new Map<string, { key: string; schema: JsonObject; uses: number }>();
  const count = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    for (const child of Object.values(node)) count(child);
    const name = recordName(node);
    if (!name || node === root) return;
    const json = JSON.stringify(node);
    const known = seen.get(json);
    if (known) known.uses += 1;
    else seen.set(json, { key: uniqueKey(name, seen), schema: node as JsonObject, uses: 1 });
  };
  count(root);
  const shared = [...seen.entries()].filter(([, record]) => record.uses > 1);
  if (shared.length === 0) return root;
  const byJson = new Map(shared);
  const replace = (node: unknown, top: boolean): unknown => {
    if (typeof node !== 'object' || node === null) return node;
    const record = top ? undefined : byJson.get(JSON.stringify(node));
    if (record) return { $ref: `#/$defs/${record.key}` };
    if (Array.isArray(node)) return node.map((child) => replace(child, false));
    return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, replace(child, false)]));
  };
  const $defs = Object.fromEntries(shared.map(([, record]) => [record.key, replace(record.schema, true)]));
  return { ...(replace(root, true) as JsonObject), $defs };
}

/** A `$defs` key for a record: its name, numbered when two different shapes share it (a lead, a lead with notes). */
function uniqueKey(name: string, seen: Map<string, { key: string }>): string {
  const taken = new Set([...seen.values()].map((record) => record.key));
  let key = name;
  for (let n = 2; taken.has(key); n += 1) key = `${name}_${n}`;
  return key;
}

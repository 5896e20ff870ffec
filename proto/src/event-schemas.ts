import { z } from 'zod';
import { type EventType, eventDataSchemas } from './events.js';

/**
 * Event data schemas as published JSON Schema, and the rule by which they may change.
 *
 * Each event type's `data` schema is published as a JSON Schema document in `proto/event-schemas/<type>.json`
 * (written from the zod schema by `proto/test/event-schemas.test.ts`). An event stays in the stream for up to
 * seven days and both versions of a service run side by side during a rolling upgrade, so every change must
 * let an old consumer read a new event and a new consumer read an old one. Only one kind does: a new
 * optional property (at any depth). Anything else (a property removed, its type, format, pattern or
 * values changed, an optional one made required or the reverse, a new required one, an object closed to
 * fields it does not name) is a new type of event, e.g. `call.completed.v2`, published beside the old type
 * until no consumer needs that any more.
 */

/** A JSON Schema document, as `z.toJSONSchema` writes it. */
export type JsonSchema = { [keyword: string]: unknown };

/** The JSON Schema of a type's `data` as it crosses the wire: what publishers send (zod's input side). */
export function eventDataJsonSchema(schema: EventType | z.ZodType): JsonSchema {
  const zodSchema = typeof schema === 'string' ? eventDataSchemas[schema] : schema;
  return z.toJSONSchema(zodSchema, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' }) as JsonSchema;
}

/** Keywords that document a schema without changing what it accepts. */
const annotations = new Set(['$schema', '$id', '$comment', 'title', 'description', 'examples', 'deprecated', 'readOnly', 'writeOnly']);

const isSchemaObject = (value: unknown): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The schema with every `$ref` replaced by what it names (from the document's `$defs`) and its annotations
 * left out, so that two documents compare by what they accept, not by how zod laid them out. A reference
 * inside itself (a recursive schema) stays `{ $recursive: name }`.
 */
export function resolveJsonSchema(schema: JsonSchema): JsonSchema {
  const defs = isSchemaObject(schema.$defs) ? schema.$defs : {};
  const resolve = (node: unknown, inside: readonly string[]): unknown => {
    if (Array.isArray(node)) return node.map((item) => resolve(item, inside));
    if (!isSchemaObject(node)) return node;
    if (typeof node.$ref === 'string') {
      const name = decodeURIComponent(node.$ref.replace(/^#\/\$defs\//, ''));
      const { $ref: _ref, ...siblings } = node;
      if (inside.includes(name)) return { $recursive: name };
      const target = defs[name];
      if (!isSchemaObject(target)) throw new Error(`unresolved $ref ${node.$ref}`);
      const resolved = resolve(target, [...inside, name]) as JsonSchema;
      const rest = resolve(siblings, inside) as JsonSchema;
      return Object.keys(rest).length === 0 ? resolved : { ...resolved, ...rest };
    }
    const out: JsonSchema = {};
    for (const [keyword, value] of Object.entries(node)) {
      if (annotations.has(keyword) || keyword === '$defs') continue;
      // Property names and `$defs` keys are names, not keywords: keep every one.
      out[keyword] =
        keyword === 'properties' && isSchemaObject(value)
          ? Object.fromEntries(Object.entries(value).map(([name, property]) => [name, resolve(property, inside)]))
          : resolve(value, inside);
    }
    return out;
  };
  return resolve(schema, []) as JsonSchema;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isSchemaObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);

/** A short account of a schema for a message: its type and the keywords that constrain it. */
function summary(schema: unknown): string {
  const text = canonical(schema);
  return text.length > 160 ? `${text.slice(0, 157)}…` : text;
}

export interface EventSchemaChanges {
  /** What an old consumer could not read from a new publisher, or a new consumer from an old one. */
  breaking: string[];
  /** The new optional properties: the one compatible change. */
  added: string[];
}

/**
 * How `current` differs from `previous` (two JSON Schema documents of one type's data): the new optional
 * properties, and every change that breaks a reader of either version. No breaking change means the two
 * versions can share a stream.
 */
export function compareEventSchemas(previous: JsonSchema, current: JsonSchema): EventSchemaChanges {
  const changes: EventSchemaChanges = { breaking: [], added: [] };
  compareNode(resolveJsonSchema(previous), resolveJsonSchema(current), 'data', changes);
  return changes;
}

function compareNode(previous: unknown, current: unknown, path: string, changes: EventSchemaChanges): void {
  if (!isSchemaObject(previous) || !isSchemaObject(current)) {
    if (!same(previous, current)) changes.breaking.push(`${path}: changed from ${summary(previous)} to ${summary(current)}`);
    return;
  }
  const { properties: previousProperties, required: previousRequired, ...previousRest } = previous;
  const { properties: currentProperties, required: currentRequired, ...currentRest } = current;
  if (isSchemaObject(previousProperties) || isSchemaObject(currentProperties)) {
    const before = isSchemaObject(previousProperties) ? previousProperties : {};
    const after = isSchemaObject(currentProperties) ? currentProperties : {};
    const requiredBefore = new Set(Array.isArray(previousRequired) ? (previousRequired as string[]) : []);
    const requiredAfter = new Set(Array.isArray(currentRequired) ? (currentRequired as string[]) : []);
    for (const [name, property] of Object.entries(before)) {
      const at = `${path}.${name}`;
      if (!(name in after)) {
        changes.breaking.push(`${at}: removed`);
        continue;
      }
      if (requiredBefore.has(name) && !requiredAfter.has(name)) changes.breaking.push(`${at}: was required, now optional`);
      if (!requiredBefore.has(name) && requiredAfter.has(name)) changes.breaking.push(`${at}: was optional, now required`);
      compareNode(property, after[name], at, changes);
    }
    for (const name of Object.keys(after)) {
      if (name in before) continue;
      if (requiredAfter.has(name)) changes.breaking.push(`${path}.${name}: new required property`);
      else changes.added.push(`${path}.${name}`);
    }
  }
  // Opening a closed object is compatible (an old reader never sees the new fields it would refuse); closing one is not.
  if (previousRest.additionalProperties === false && !('additionalProperties' in currentRest)) delete previousRest.additionalProperties;
  compareKeywords(previousRest, currentRest, path, changes);
}

/** Every keyword but `properties` and `required`: alternatives pairwise, items and maps recursively, the rest by value. */
function compareKeywords(previous: JsonSchema, current: JsonSchema, path: string, changes: EventSchemaChanges): void {
  for (const keyword of new Set([...Object.keys(previous), ...Object.keys(current)])) {
    const before = previous[keyword];
    const after = current[keyword];
    if ((keyword === 'anyOf' || keyword === 'oneOf' || keyword === 'allOf') && Array.isArray(before) && Array.isArray(after)) {
      if (before.length !== after.length) {
        changes.breaking.push(
          `${path}: ${keyword} had ${before.length} alternatives, now ${after.length}: ${summary(before)} → ${summary(after)}`,
        );
        continue;
      }
      before.forEach((option, index) => {
        compareNode(option, after[index], `${path}(${keyword}[${index}])`, changes);
      });
      continue;
    }
    if ((keyword === 'items' || keyword === 'additionalProperties') && isSchemaObject(before) && isSchemaObject(after)) {
      compareNode(before, after, keyword === 'items' ? `${path}[]` : `${path}.*`, changes);
      continue;
    }
    if (!same(before, after)) {
      const describe = (value: unknown) => (value === undefined ? 'absent' : summary(value));
      changes.breaking.push(`${path}: ${keyword} changed from ${describe(before)} to ${describe(after)}`);
    }
  }
}

/**
 * Where a schema closes an object to fields it does not name (`additionalProperties: false`, zod's
 * `.strict()`): a consumer built on it would refuse an event of a newer publisher.
 */
export function closedObjects(schema: JsonSchema): string[] {
  const found: string[] = [];
  const walk = (node: unknown, path: string) => {
    if (Array.isArray(node)) {
      node.forEach((item, index) => {
        walk(item, `${path}[${index}]`);
      });
      return;
    }
    if (!isSchemaObject(node)) return;
    if (node.additionalProperties === false) found.push(path);
    for (const [keyword, value] of Object.entries(node)) {
      if (keyword === 'properties' && isSchemaObject(value))
        for (const [name, property] of Object.entries(value)) walk(property, `${path}.${name}`);
      else if (keyword === 'items') walk(value, `${path}[]`);
      else walk(value, `${path}(${keyword})`);
    }
  };
  walk(resolveJsonSchema(schema), 'data');
  return found;
}

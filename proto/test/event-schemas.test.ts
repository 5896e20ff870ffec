import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { closedObjects, compareEventSchemas, eventDataJsonSchema, type JsonSchema } from '../src/event-schemas.js';
import { type EventType, eventTypes } from '../src/events.js';

/**
 * The contract test of event data: each type's schema against its published version in proto/event-schemas/
 * (ARCHITECTURE.md, "Upgrades without loss"). A new optional property is published with
 * `UPDATE_SNAPSHOTS=1 npm test -- proto/test/event-schemas.test.ts`; any other change fails here, and the
 * new shape has to be a new event type.
 */
const publishedDir = new URL('../event-schemas/', import.meta.url);
const fileOf = (type: string) => `${type}.json`;
const isEventType = (type: string): type is EventType => (eventTypes as readonly string[]).includes(type);

/** The published document: the JSON Schema, titled with its type. */
function document(type: EventType): JsonSchema {
  const { $schema, ...schema } = eventDataJsonSchema(type);
  return { $schema, title: type, ...schema };
}
const text = (schema: JsonSchema) => `${JSON.stringify(schema, null, 2)}\n`;

function published(): Map<string, JsonSchema> {
  mkdirSync(publishedDir, { recursive: true });
  return new Map(
    readdirSync(publishedDir)
      .filter((file) => file.endsWith('.json'))
      .map((file) => [file.slice(0, -'.json'.length), JSON.parse(readFileSync(new URL(file, publishedDir), 'utf8')) as JsonSchema]),
  );
}

describe('event data schemas against their published versions', () => {
  test('every change since the published version is additive: new optional properties only', () => {
    const breaking: string[] = [];
    for (const [type, previous] of published()) {
      if (!isEventType(type)) continue; // the next test's
      const changes = compareEventSchemas(previous, document(type));
      for (const change of changes.breaking) breaking.push(`${type}: ${change}`);
    }
    assert.deepEqual(
      breaking,
      [],
      `breaking changes to published event types:\n  ${breaking.join('\n  ')}\n` +
        'Consumers of the published version would dead-letter the new events (and new consumers the old ones). Keep the ' +
        "type's data as published (new fields optional) and put the new shape in a new type, e.g. call.completed.v2 " +
        '(ARCHITECTURE.md, "Upgrades without loss").',
    );
  });

  test('no published type is gone: events of it may still be in the stream, and consumers of it running', () => {
    const gone = [...published().keys()].filter((type) => !isEventType(type));
    assert.deepEqual(gone, [], `published event types missing from eventTypes: ${gone.join(', ')}`);
  });

  test('consumers accept unknown fields: no event data schema closes an object (no .strict())', () => {
    const closed = eventTypes.flatMap((type) => closedObjects(eventDataJsonSchema(type)).map((path) => `${type}: ${path}`));
    assert.deepEqual(closed, [], `closed objects in event data (a newer publisher's field would be refused): ${closed.join(', ')}`);
  });

  test('the published versions are the current schemas (UPDATE_SNAPSHOTS=1 publishes additive changes and new types)', () => {
    const stored = published();
    if (process.env.UPDATE_SNAPSHOTS === '1') {
      for (const type of eventTypes) {
        const previous = stored.get(type);
        const current = document(type);
        // A breaking change is never published over its type: the first test says what to do instead.
        if (previous && compareEventSchemas(previous, current).breaking.length > 0) continue;
        writeFileSync(new URL(fileOf(type), publishedDir), text(current));
      }
    }
    const now = published();
    const stale = eventTypes.filter((type) => {
      const previous = now.get(type);
      return !previous || text(previous) !== text(document(type));
    });
    assert.deepEqual(
      stale,
      [],
      `event data schemas not published as they are now (${stale.join(', ')}): review, then run ` +
        'UPDATE_SNAPSHOTS=1 npm test -- proto/test/event-schemas.test.ts',
    );
  });
});

describe('compareEventSchemas', () => {
  const call = z.object({
    id: z.string(),
    status: z.enum(['queued', 'completed']),
    duration_seconds: z.number().int().nullable(),
    cost: z.object({ amount: z.number().int(), currency: z.string() }).nullable(),
    tags: z.array(z.string()),
    note: z.string().optional(),
  });
  const changes = (next: z.ZodType) => compareEventSchemas(eventDataJsonSchema(call), eventDataJsonSchema(next));

  test('the same schema, and one with new optional properties (also nested, also described), is compatible', () => {
    assert.deepEqual(changes(call), { breaking: [], added: [] });
    const additive = call.extend({
      sentiment: z.enum(['positive', 'negative']).optional(),
      cost: z.object({ amount: z.number().int(), currency: z.string(), tax: z.number().int().optional() }).nullable(),
      id: z.string().describe('The call id'),
    });
    assert.deepEqual(changes(additive), { breaking: [], added: ['data.cost(anyOf[0]).tax', 'data.sentiment'] });
  });

  test('a hand-made breaking change of each kind is caught, naming the property', () => {
    const cases: Array<[string, z.ZodType, RegExp]> = [
      ['a property removed', call.omit({ note: true }), /^data\.note: removed$/],
      ['a type changed', call.extend({ duration_seconds: z.string().nullable() }), /^data\.duration_seconds/],
      ['null no longer allowed', call.extend({ duration_seconds: z.number().int() }), /^data\.duration_seconds/],
      ['a new required property', call.extend({ sentiment: z.string() }), /^data\.sentiment: new required property$/],
      ['an optional property made required', call.extend({ note: z.string() }), /^data\.note: was optional, now required$/],
      ['a required property made optional', call.extend({ id: z.string().optional() }), /^data\.id: was required, now optional$/],
      ['an enum value added', call.extend({ status: z.enum(['queued', 'completed', 'failed']) }), /^data\.status: enum changed/],
      ['an enum value removed', call.extend({ status: z.enum(['queued']) }), /^data\.status: enum changed/],
      ['a constraint added', call.extend({ id: z.string().min(3) }), /^data\.id: minLength changed from absent to 3$/],
      ['an array of another item', call.extend({ tags: z.array(z.number()) }), /^data\.tags\[\]: type changed/],
      [
        'a nested property removed',
        call.extend({ cost: z.object({ amount: z.number().int() }).nullable() }),
        /^data\.cost\(anyOf\[0\]\)\.currency: removed$/,
      ],
      ['an object closed (.strict())', call.strict(), /^data: additionalProperties changed from absent to false$/],
    ];
    for (const [what, next, expected] of cases) {
      const { breaking } = changes(next);
      assert.ok(
        breaking.some((change) => expected.test(change)),
        `${what}: expected a breaking change matching ${expected}, got ${JSON.stringify(breaking)}`,
      );
    }
  });

  test('opening a closed object is compatible; closing one is caught by closedObjects', () => {
    const closed = call.strict();
    assert.deepEqual(compareEventSchemas(eventDataJsonSchema(closed), eventDataJsonSchema(call)).breaking, []);
    assert.deepEqual(closedObjects(eventDataJsonSchema(closed)), ['data']);
    assert.deepEqual(closedObjects(eventDataJsonSchema(z.object({ steps: z.array(z.object({ a: z.string() }).strict()) }))), [
      'data.steps[]',
    ]);
  });
});

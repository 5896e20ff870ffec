import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventDataSchemas, eventExample, eventExamples, eventRecordId, idPrefixes, subscribableEventTypes } from '@voice/proto';

/** Every string in a value, with the path it sits at. */
function strings(value: unknown, path = ''): Array<[string, string]> {
  if (typeof value === 'string') return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((item, index) => strings(item, `${path}[${index}]`));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([key, inner]) => strings(inner, `${path}.${key}`));
  return [];
}

describe('event examples (what the trigger test helper sends)', () => {
  test('every subscribable type has exactly one example, and nothing else has one', () => {
    assert.deepEqual(Object.keys(eventExamples).sort(), [...subscribableEventTypes].sort());
  });

  for (const type of subscribableEventTypes) {
    test(`${type}: the example parses against its schema, unchanged`, () => {
      const example = eventExample(type);
      const parsed = eventDataSchemas[type].safeParse(example);
      assert.ok(parsed.success, parsed.success ? '' : parsed.error.message);
      // Schemas with defaults could fill in what the example lacks: the example must already be complete.
      assert.deepEqual(parsed.data, example);
    });
  }

  test('ids carry their records’ prefixes, and a record’s event names its record', () => {
    const prefixes = new Set<string>(Object.values(idPrefixes));
    for (const type of subscribableEventTypes) {
      for (const [path, value] of strings(eventExample(type))) {
        if (!/(^|\.)(id|[a-z]+_id)$/.test(path) || path.endsWith('.currency')) continue;
        const prefix = value.split('_')[0] ?? '';
        assert.ok(prefixes.has(prefix), `${type}${path} = ${value}: not a known id prefix`);
        assert.match(value, /^[a-z]+_[0-9A-Za-z]{8,40}$/, `${type}${path}`);
      }
      if (type !== 'recall.brand_scored') assert.notEqual(eventRecordId({ type, data: eventExample(type) }), null, type);
    }
  });

  test('phone numbers are test-mode magic numbers or fictional 555-01xx numbers, never a real subscriber’s', () => {
    for (const type of subscribableEventTypes) {
      for (const [path, value] of strings(eventExample(type))) {
        if (!/^\+\d{8,15}$/.test(value)) continue;
        assert.match(value, /^\+1\d{3}55501\d{2}$/, `${type}${path} = ${value}`);
      }
    }
  });
});

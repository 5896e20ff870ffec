import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLeadSchema, ianaTimezoneSchema, recentLeadsQuerySchema, sequenceStepSchema } from '@voice/proto';
import { firstStepAt } from '../src/domain/sequences.js';
import { canonicalLocale, canonicalTimezone, slugify } from '../src/domain/workspaces.js';
import { renderTemplate } from '../src/sequences/runner.js';

describe('leads rules', () => {
  it('fills SMS templates from the lead, empty when a value is unknown', () => {
    assert.equal(
      renderTemplate('Hi {{first_name}} from {{ company }}!', { name: 'Ada Lovelace', company: 'Engines' }),
      'Hi Ada from Engines!',
    );
    assert.equal(renderTemplate('Hi {{name}}, {{company}}.', { name: null, company: null }), 'Hi , .');
    assert.equal(renderTemplate('Keep {{unknown}}', { name: 'A', company: null }), 'Keep {{unknown}}');
  });

  it('derives workspace slugs from names', () => {
    assert.equal(slugify('North Office (HQ)'), 'north-office-hq');
    assert.equal(slugify('Café Zürich'), 'cafe-zurich');
    assert.equal(slugify('!!!'), 'workspace');
  });

  it('stores time zones and locales in their canonical spelling', () => {
    assert.equal(canonicalTimezone('america/new_york'), 'America/New_York');
    assert.equal(canonicalTimezone('UTC'), 'UTC');
    assert.equal(canonicalLocale('en-us'), 'en-US');
  });

  it('schedules the first step after its delay, scaled', () => {
    const start = new Date('2026-01-01T00:00:00.000Z');
    assert.equal(firstStepAt([{ type: 'wait', delay_seconds: 60 }], start, 1).toISOString(), '2026-01-01T00:01:00.000Z');
    assert.equal(firstStepAt([{ type: 'call', delay_seconds: 60 }], start, 0.5).toISOString(), '2026-01-01T00:00:30.000Z');
  });

  it('reads query booleans as words, not as truthy strings', () => {
    assert.equal(recentLeadsQuerySchema.parse({ qualified_only: 'false' }).qualified_only, false);
    assert.equal(recentLeadsQuerySchema.parse({ qualified_only: 'true' }).qualified_only, true);
    assert.equal(recentLeadsQuerySchema.parse({ qualified_only: true }).qualified_only, true);
    assert.equal(recentLeadsQuerySchema.parse({}).since_hours, 168);
    assert.equal(recentLeadsQuerySchema.safeParse({ qualified_only: 'yes' }).success, false);
  });

  it('validates steps, time zones and lead fields', () => {
    assert.equal(sequenceStepSchema.safeParse({ type: 'wait', delay_seconds: 0 }).success, false);
    assert.equal(sequenceStepSchema.safeParse({ type: 'sms' }).success, false);
    assert.equal(ianaTimezoneSchema.safeParse('Europe/Paris').success, true);
    assert.equal(ianaTimezoneSchema.safeParse('Mars/Olympus').success, false);
    assert.equal(createLeadSchema.safeParse({ phone: '555-1234' }).success, false);
    assert.deepEqual(createLeadSchema.parse({ name: 'A' }).tags, []);
  });
});

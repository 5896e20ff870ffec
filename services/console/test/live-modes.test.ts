// The live stream keeps test and live apart (README, "Test mode"): an event goes to the streams of its own
// organization id, a twin's (`org_test_…`) to test-mode pages only; an event whose `livemode` contradicts
// its organization is shown nowhere.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testTwinOf } from '@voice/proto';
import { type LiveEvent, liveEventOf } from '../src/live/events.js';
import { type LiveClient, LiveHub } from '../src/live/hub.js';

const liveOrg = 'org_2x8FqL0aZ9b1c2d3e4f5g6';
const twin = testTwinOf(liveOrg);

const envelope = (orgId: string, livemode: boolean | undefined, callId: string) => ({
  id: `evt_${callId}`,
  type: 'call.queued',
  created_at: '2026-11-27T12:00:00.000Z',
  org_id: orgId,
  ...(livemode === undefined ? {} : { livemode }),
  data: { call_id: callId, status: 'queued' },
});

test('an event is told by its organization id; one whose livemode contradicts it is dropped', () => {
  assert.equal(liveEventOf(envelope(twin, false, 'call_test1'))?.orgId, twin);
  assert.equal(liveEventOf(envelope(liveOrg, true, 'call_live1'))?.orgId, liveOrg);
  // Published before test mode: no livemode, read as its organization says.
  assert.equal(liveEventOf(envelope(liveOrg, undefined, 'call_old1'))?.orgId, liveOrg);
  assert.equal(liveEventOf(envelope(twin, true, 'call_odd1')), undefined);
  assert.equal(liveEventOf(envelope(liveOrg, false, 'call_odd2')), undefined);
});

test('the hub hands a twin’s events to test-mode streams only, and live events to live ones only', () => {
  const hub = new LiveHub({ perProcess: 10, perSession: 10 });
  const received = new Map<string, string[]>();
  const client = (name: string, orgId: string): LiveClient => ({
    orgId,
    role: 'owner',
    sessionHash: name,
    send: (event: LiveEvent) => received.set(name, [...(received.get(name) ?? []), event.resource_id ?? '']),
    end: () => undefined,
  });
  assert.equal(hub.admit(client('live page', liveOrg)), 'admitted');
  assert.equal(hub.admit(client('test page', twin)), 'admitted');
  for (const [orgId, livemode, id] of [
    [twin, false, 'call_test1'],
    [liveOrg, true, 'call_live1'],
    [twin, false, 'call_test2'],
  ] as const) {
    const live = liveEventOf(envelope(orgId, livemode, id));
    assert.ok(live);
    hub.deliver(live.orgId, live.event);
  }
  assert.deepEqual(Object.fromEntries(received), { 'test page': ['call_test1', 'call_test2'], 'live page': ['call_live1'] });
});

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually, type OwnServer, startOwnRedis, testIdentity } from '@voice/kit/testing';
import type { Call, CallStatus, EventEnvelope } from '@voice/proto';
import { collectEvents, type Harness, startHarness } from './support/harness.js';

// A Redis of this file's own, restarted without its data: the shared one is never flushed.
let redis: OwnServer;
let h: Harness;
let events: EventEnvelope<'call.failed'>[];
const org = testIdentity();

before(async () => {
  redis = await startOwnRedis();
  // The sandbox at 0.3 of real time: a call that is not answered rings 9 s, longer than an answered one
  // takes to be answered (at most 6 s); the ringing deadline is longer than 9 s, so only a lost step
  // leaves that call past it.
  h = await startHarness({
    REDIS_URL: redis.url,
    SANDBOX_TIME_SCALE: '0.3',
    DIAL_SWEEP_INTERVAL_MS: '200',
    CALL_RINGING_TIMEOUT_MS: '12000',
    CALL_IN_PROGRESS_TIMEOUT_MS: '5000',
  });
  events = await collectEvents(h.deps.bus, 'test-stuck-calls', ['call.failed']);
});
after(async () => {
  await h?.close();
  await redis?.close();
});

const getCall = async (id: string) => (await h.request(org, 'GET', `/api/v1/phone/calls/${id}`)).json() as Call;
const reaches = (id: string, status: CallStatus) =>
  eventually(`${id} ${status}`, async () => ((await getCall(id)).status === status ? true : undefined), { timeoutMs: 30_000 });

test('calls whose next step Redis lost are failed past their deadline, with call.failed', async () => {
  const queue = async (sandboxStatus: string) =>
    (
      (
        await h.request(org, 'POST', '/api/v1/phone/calls', { to: '+14155550123', metadata: { sandbox_status: sandboxStatus } })
      ).json() as Call
    ).id;
  const ringing = await queue('no_answer');
  const talking = await queue('completed');
  await reaches(ringing, 'ringing');
  await reaches(talking, 'in_progress');

  // Redis restarts without its data: the delayed jobs that would hang up both calls are gone.
  await redis.restart();

  for (const id of [ringing, talking]) {
    await reaches(id, 'failed');
    const call = await getCall(id);
    assert.equal(call.end_reason, 'no_carrier_report');
    assert.ok(call.ended_at);
    const announced = await eventually(`an event of call ${id}`, () => events.find((event) => event.data.call_id === id), {
      timeoutMs: 10_000,
    });
    assert.equal((announced.data as { status: string }).status, 'failed');
  }
});

test('dialer jobs are kept an hour once completed and by count once failed, so Redis does not grow with traffic', async () => {
  await h.deps.queues.enqueueCall(org.org_id, 'call_retentionprobe00000');
  const job = await h.deps.queues.dial.getJob('call_retentionprobe00000');
  assert.deepEqual(job?.opts.removeOnComplete, { age: 3_600 });
  assert.deepEqual(job?.opts.removeOnFail, { count: 5_000 });
});

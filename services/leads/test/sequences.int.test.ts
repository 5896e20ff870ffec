import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError, parseEnv } from '@voice/kit';
// The real telephony service (sandbox carrier) answers the sequence steps over NATS, as in production.
import { eventually } from '@voice/kit/testing';
import { leadsRpc, telephonyRpc } from '@voice/proto';
import { buildApp as buildTelephonyApp } from '../../telephony/src/app.js';
import { connectDeps as connectTelephony } from '../../telephony/src/deps.js';
import { envSchema as telephonyEnvSchema } from '../../telephony/src/env.js';
import { stepJobId } from '../src/sequences/queue.js';
import { sweepOverdueSteps } from '../src/sequences/sweeper.js';
import { collectEvents, type Harness, type Json, startLeads, testIdentity } from './support/harness.js';

describe('sequences and enrollments', () => {
  let h: Harness;
  let events: ReturnType<typeof collectEvents>;
  let closeTelephony: () => Promise<void>;
  const org = testIdentity();
  const otherOrg = testIdentity();

  before(async () => {
    h = await startLeads();
    events = collectEvents(h);
    const telephonyDeps = await connectTelephony(
      parseEnv(telephonyEnvSchema, { ...h.ctx.env, SANDBOX_TIME_SCALE: '0.002', DIAL_BACKOFF_MS: '20' }),
    );
    const telephony = await buildTelephonyApp(telephonyDeps);
    closeTelephony = async () => {
      await telephony.close();
      await telephonyDeps.close();
    };
  });
  after(async () => {
    await closeTelephony?.();
    await h?.close();
  });

  const post = async (url: string, body: unknown, identity = org) => {
    const response = await h.request(identity, 'POST', url, body);
    assert.ok(response.statusCode === 201 || response.statusCode === 200, `${url}: ${JSON.stringify(response.json())}`);
    return response.json();
  };
  const enrollmentOf = async (sequenceId: string, enrollmentId: string) =>
    (await h.request(org, 'GET', `/api/v1/sequences/${sequenceId}/enrollments/${enrollmentId}`)).json();
  const untilFinished = (sequenceId: string, enrollmentId: string) =>
    eventually('the enrollment to finish', async () => {
      const enrollment = await enrollmentOf(sequenceId, enrollmentId);
      return enrollment.status === 'active' ? undefined : enrollment;
    });

  it('creates, reads, changes and deletes sequences', async () => {
    const created = await h.request(org, 'POST', '/api/v1/sequences', {
      name: 'Welcome',
      description: 'New inbound leads',
      steps: [{ type: 'call' }, { type: 'wait', delay_seconds: 86_400 }, { type: 'sms', body: 'Hi {{first_name}}' }],
    });
    assert.equal(created.statusCode, 201, JSON.stringify(created.json()));
    const sequence = created.json();
    assert.match(sequence.id, /^seq_/);
    assert.deepEqual(sequence.steps[0], { type: 'call', delay_seconds: 0 });
    assert.deepEqual((await h.request(org, 'GET', `/api/v1/sequences/${sequence.id}`)).json(), sequence);

    const patched = await h.request(org, 'PATCH', `/api/v1/sequences/${sequence.id}`, {
      name: 'Welcome v2',
      steps: [{ type: 'call', delay_seconds: 60 }],
    });
    assert.equal(patched.statusCode, 200);
    assert.equal(patched.json().name, 'Welcome v2');
    assert.equal(patched.json().steps.length, 1);

    const list = (await h.request(org, 'GET', '/api/v1/sequences?limit=1')).json();
    assert.deepEqual(
      list.data.map((item: Json) => item.id),
      [sequence.id],
    );
    assert.equal((await h.request(org, 'DELETE', `/api/v1/sequences/${sequence.id}`)).statusCode, 200);
    assert.equal((await h.request(org, 'GET', `/api/v1/sequences/${sequence.id}`)).statusCode, 404);
  });

  it('refuses bad sequences', async () => {
    for (const body of [
      { name: 'No steps', steps: [] },
      { name: 'Zero wait', steps: [{ type: 'wait', delay_seconds: 0 }] },
      { name: 'Empty SMS', steps: [{ type: 'sms' }] },
      { name: 'Unknown step', steps: [{ type: 'email' }] },
      { name: 'Negative delay', steps: [{ type: 'call', delay_seconds: -1 }] },
      { name: 'Too long', steps: [{ type: 'call', delay_seconds: 91 * 86_400 }] },
    ]) {
      const response = await h.request(org, 'POST', '/api/v1/sequences', body);
      assert.equal(response.statusCode, 400, JSON.stringify(body));
      assert.equal(response.json().error.code, 'invalid_request');
    }
  });

  it('runs a call and an SMS step end to end against telephony, and the qualified call qualifies the lead', async () => {
    const lead = await post('/api/v1/leads', { name: 'Ada Lovelace', phone: '+14155550111', company: 'Engines' });
    const sequence = await post('/api/v1/sequences', {
      name: 'Follow up',
      steps: [
        // Sandbox test values, like a payment provider's test cards: this call is answered and qualifies.
        { type: 'call', metadata: { sandbox_status: 'completed', sandbox_outcome: 'qualified_lead' } },
        { type: 'wait', delay_seconds: 2 },
        { type: 'sms', delay_seconds: 1, body: 'Hi {{first_name}}, thanks from {{company}}!' },
      ],
    });
    const enrolled = await post(`/api/v1/sequences/${sequence.id}/enrollments`, { lead_ids: [lead.id] });
    assert.equal(enrolled.data.length, 1);
    const enrollment = enrolled.data[0];
    assert.match(enrollment.id, /^enr_/);
    assert.equal(enrollment.lead_id, lead.id);

    const finished = await untilFinished(sequence.id, enrollment.id);
    assert.equal(finished.status, 'completed');
    assert.equal(finished.current_step, 3);
    assert.ok(finished.completed_at);
    assert.deepEqual(
      finished.history.map((step: Json) => [step.step, step.type, step.outcome, step.reason]),
      [
        [0, 'call', 'done', null],
        [1, 'wait', 'done', null],
        [2, 'sms', 'done', null],
      ],
    );

    const callId = finished.history[0].call_id;
    const smsId = finished.history[2].sms_id;
    const call = await h.deps.bus.call(telephonyRpc.getCall, org, { id: callId });
    assert.equal(call.lead_id, lead.id);
    assert.equal(call.to, '+14155550111');
    assert.equal(call.source, 'sequence');
    assert.equal(call.metadata.enrollment_id, enrollment.id);
    const sms = await h.deps.bus.call(telephonyRpc.getSms, org, { id: smsId });
    assert.equal(sms.body, 'Hi Ada, thanks from Engines!');
    assert.equal(sms.lead_id, lead.id);
    // One call and one message for the whole run: retried steps never queue twice.
    assert.equal((await h.deps.bus.call(telephonyRpc.listCalls, org, { lead_id: lead.id })).data.length, 1);
    assert.equal((await h.deps.bus.call(telephonyRpc.listSms, org, { lead_id: lead.id })).data.length, 1);

    assert.ok(events.some((event) => event.type === 'enrollment.started' && event.data.id === enrollment.id));
    await eventually('lead.updated announcing the contact', async () =>
      events.find((event) => event.type === 'lead.updated' && event.data.id === lead.id && event.data.status === 'contacted'),
    );
    await eventually('enrollment.completed', async () =>
      events.find((event) => event.type === 'enrollment.completed' && event.data.id === enrollment.id),
    );

    // The sandbox call completes with outcome qualified_lead; telephony's call.completed qualifies the lead.
    const qualified = await eventually('the lead to be qualified by its call', async () => {
      const detail = (await h.request(org, 'GET', `/api/v1/leads/${lead.id}`)).json();
      return detail.status === 'qualified' ? detail : undefined;
    });
    assert.ok(qualified.qualified_at);
    assert.deepEqual(
      qualified.recent_calls.map((item: Json) => item.id),
      [callId],
    );
    assert.deepEqual(
      qualified.enrollments.map((item: Json) => item.id),
      [enrollment.id],
    );
  });

  it('skips the steps of a lead on the do-not-call list, recording why', async () => {
    const lead = await post('/api/v1/leads', { name: 'Do Not Call', phone: '+14155550112' });
    await h.deps.bus.call(telephonyRpc.addDnc, org, { phone: '+14155550112', channel: 'all', reason: 'asked us to stop' });
    const noPhone = await post('/api/v1/leads', { name: 'Email only', email: 'only@example.com' });
    const sequence = await post('/api/v1/sequences', { name: 'Nudge', steps: [{ type: 'call' }, { type: 'sms', body: 'Hello' }] });
    const enrolled = await post(`/api/v1/sequences/${sequence.id}/enrollments`, { lead_ids: [lead.id, noPhone.id] });
    assert.equal(enrolled.data.length, 2);

    const blocked = await untilFinished(sequence.id, enrolled.data[0].id);
    assert.equal(blocked.status, 'completed');
    assert.deepEqual(
      blocked.history.map((step: Json) => [step.type, step.outcome, step.reason]),
      [
        ['call', 'skipped', 'dnc_blocked'],
        ['sms', 'skipped', 'dnc_blocked'],
      ],
    );
    const unreachable = await untilFinished(sequence.id, enrolled.data[1].id);
    assert.deepEqual(
      unreachable.history.map((step: Json) => step.reason),
      ['no_phone', 'no_phone'],
    );
    assert.equal((await h.deps.bus.call(telephonyRpc.listCalls, org, { lead_id: lead.id })).data.length, 0);
    // Nothing reached the lead, so it was not contacted.
    assert.equal((await h.request(org, 'GET', `/api/v1/leads/${lead.id}`)).json().status, 'new');
  });

  it('unenrolling stops future steps', async () => {
    const lead = await post('/api/v1/leads', { name: 'Stopper', phone: '+14155550113' });
    const sequence = await post('/api/v1/sequences', { name: 'Slow', steps: [{ type: 'call', delay_seconds: 90 * 86_400 }] });
    const enrollment = (await post(`/api/v1/sequences/${sequence.id}/enrollments`, { lead_ids: [lead.id] })).data[0];
    assert.equal(enrollment.status, 'active');
    assert.ok(enrollment.next_step_at);

    // Enrolling again while active keeps the one enrollment.
    const again = await post(`/api/v1/sequences/${sequence.id}/enrollments`, { lead_ids: [lead.id] });
    assert.deepEqual(
      again.data.map((item: Json) => item.id),
      [enrollment.id],
    );
    // A sequence with an active enrollment cannot be deleted.
    assert.equal((await h.request(org, 'DELETE', `/api/v1/sequences/${sequence.id}`)).statusCode, 409);

    const stopped = await h.request(org, 'POST', `/api/v1/sequences/${sequence.id}/enrollments/${enrollment.id}/stop`, {
      reason: 'replied by email',
    });
    assert.equal(stopped.statusCode, 200);
    assert.equal(stopped.json().status, 'stopped');
    assert.equal(stopped.json().stopped_reason, 'replied by email');
    assert.equal((await h.request(org, 'POST', `/api/v1/sequences/${sequence.id}/enrollments/${enrollment.id}/stop`)).statusCode, 409);

    // Run the pending step now: it finds the enrollment stopped and does nothing.
    const job = await h.deps.stepQueue.getJob(stepJobId(enrollment.id, 0));
    assert.ok(job, 'the first step was scheduled');
    await job.promote();
    await eventually('the step job to run', async () => ((await job.getState()) === 'completed' ? true : undefined));
    const after = await enrollmentOf(sequence.id, enrollment.id);
    assert.equal(after.status, 'stopped');
    assert.deepEqual(after.history, []);
    assert.equal((await h.deps.bus.call(telephonyRpc.listCalls, org, { lead_id: lead.id })).data.length, 0);
    await eventually('enrollment.stopped', async () =>
      events.find((event) => event.type === 'enrollment.stopped' && event.data.id === enrollment.id),
    );

    // A stopped lead can be enrolled afresh.
    const fresh = (await post(`/api/v1/sequences/${sequence.id}/enrollments`, { lead_ids: [lead.id] })).data[0];
    assert.notEqual(fresh.id, enrollment.id);
    const byStatus = (await h.request(org, 'GET', `/api/v1/sequences/${sequence.id}/enrollments?status=stopped`)).json();
    assert.deepEqual(
      byStatus.data.map((item: Json) => item.id),
      [enrollment.id],
    );
    const ofLead = (await h.request(org, 'GET', `/api/v1/leads/${lead.id}/enrollments`)).json();
    assert.deepEqual(
      ofLead.data.map((item: Json) => item.id),
      [fresh.id, enrollment.id],
    );
    // Over NATS, a lead's active enrollment can be stopped by naming the lead.
    const viaRpc = await h.deps.bus.call(leadsRpc.unenrollLead, org, { sequence_id: sequence.id, lead_id: lead.id });
    assert.equal(viaRpc.id, fresh.id);
    assert.equal(viaRpc.status, 'stopped');
  });

  it('keeps a running enrollment on the steps it started with when the sequence changes', async () => {
    const lead = await post('/api/v1/leads', { name: 'Steady' });
    const sequence = await post('/api/v1/sequences', { name: 'Edited', steps: [{ type: 'wait', delay_seconds: 90 * 86_400 }] });
    const enrollment = (await post(`/api/v1/sequences/${sequence.id}/enrollments`, { lead_ids: [lead.id] })).data[0];
    const patched = await h.request(org, 'PATCH', `/api/v1/sequences/${sequence.id}`, { steps: [{ type: 'call' }, { type: 'call' }] });
    assert.equal(patched.json().steps.length, 2);
    const running = await enrollmentOf(sequence.id, enrollment.id);
    assert.deepEqual(running.steps, [{ type: 'wait', delay_seconds: 90 * 86_400 }]);
  });

  it('puts back the job of a step whose job was lost', async () => {
    const lead = await post('/api/v1/leads', { name: 'Lost job' });
    const sequence = await post('/api/v1/sequences', { name: 'Lost', steps: [{ type: 'wait', delay_seconds: 90 * 86_400 }] });
    const enrollment = (await post(`/api/v1/sequences/${sequence.id}/enrollments`, { lead_ids: [lead.id] })).data[0];
    // Lose the job (as a Redis flush would) and let the step fall overdue.
    await (await h.deps.stepQueue.getJob(stepJobId(enrollment.id, 0)))?.remove();
    await h.deps.prisma.enrollment.updateMany({
      where: { orgId: org.org_id, id: enrollment.id },
      data: { nextStepAt: new Date(Date.now() - 5 * 60_000) },
    });
    assert.ok((await sweepOverdueSteps(h.deps)) >= 1);
    const finished = await untilFinished(sequence.id, enrollment.id);
    assert.equal(finished.status, 'completed');
    assert.deepEqual(
      finished.history.map((step: Json) => [step.type, step.outcome]),
      [['wait', 'done']],
    );
  });

  it('enrolls several leads at once over NATS and lists enrollments', async () => {
    const sequence = await post('/api/v1/sequences', { name: 'Batch', steps: [{ type: 'wait', delay_seconds: 90 * 86_400 }] });
    const leads = [];
    for (let index = 0; index < 3; index++) leads.push(await post('/api/v1/leads', { name: `Batch ${index}` }));
    const enrolled = await h.deps.bus.call(leadsRpc.enroll, org, { sequence_id: sequence.id, lead_ids: leads.map((lead) => lead.id) });
    assert.deepEqual(
      enrolled.data.map((item) => item.lead_id),
      leads.map((lead) => lead.id),
    );
    const page = await h.deps.bus.call(leadsRpc.listEnrollments, org, { sequence_id: sequence.id, limit: 2 });
    assert.equal(page.data.length, 2);
    assert.equal(page.has_more, true);
    const rest = await h.deps.bus.call(leadsRpc.listEnrollments, org, {
      sequence_id: sequence.id,
      limit: 2,
      cursor: page.next_cursor ?? '',
    });
    assert.equal(rest.data.length, 1);
    const unknownLead = await h.request(org, 'POST', `/api/v1/sequences/${sequence.id}/enrollments`, {
      lead_ids: ['lead_00000000000000000000'],
    });
    assert.equal(unknownLead.statusCode, 404);
    assert.equal(unknownLead.json().error.param, 'lead_ids');
    const empty = await h.request(org, 'POST', `/api/v1/sequences/${sequence.id}/enrollments`, { lead_ids: [] });
    assert.equal(empty.statusCode, 400);
    // The path names the sequence `id`, and so does the error for an unknown one.
    const unknownSequence = await h.request(org, 'POST', '/api/v1/sequences/seq_00000000000000000000/enrollments', {
      lead_ids: [leads[0].id],
    });
    assert.equal(unknownSequence.statusCode, 404);
    assert.equal(unknownSequence.json().error.param, 'id');
  });

  it('enrolls once per idempotency key over NATS too, the key shared with REST', async () => {
    const sequence = await post('/api/v1/sequences', { name: 'Keyed', steps: [{ type: 'wait', delay_seconds: 90 * 86_400 }] });
    const lead = await post('/api/v1/leads', { name: 'Keyed' });
    const input = { sequence_id: sequence.id, lead_ids: [lead.id], idempotency_key: `enroll-${sequence.id}` };
    const enrolled = await h.deps.bus.call(leadsRpc.enroll, org, input);
    assert.deepEqual(await h.deps.bus.call(leadsRpc.enroll, org, input), enrolled);
    const viaRest = await h.request(
      org,
      'POST',
      `/api/v1/sequences/${sequence.id}/enrollments`,
      { lead_ids: [lead.id] },
      {
        'idempotency-key': input.idempotency_key,
      },
    );
    assert.equal(viaRest.statusCode, 201);
    assert.equal(viaRest.headers['idempotent-replayed'], 'true');
    assert.deepEqual(viaRest.json(), enrolled);
    await assert.rejects(
      h.deps.bus.call(leadsRpc.enroll, org, { ...input, lead_ids: [lead.id, lead.id] }),
      (error: unknown) => error instanceof ApiError && error.code === 'idempotency_conflict',
    );
  });

  it('keeps organizations apart', async () => {
    const lead = await post('/api/v1/leads', { name: 'Mine', phone: '+14155550114' });
    const sequence = await post('/api/v1/sequences', { name: 'Mine', steps: [{ type: 'wait', delay_seconds: 90 * 86_400 }] });
    const enrollment = (await post(`/api/v1/sequences/${sequence.id}/enrollments`, { lead_ids: [lead.id] })).data[0];
    const theirSequence = await post('/api/v1/sequences', { name: 'Theirs', steps: [{ type: 'call' }] }, otherOrg);
    for (const [method, url, payload] of [
      ['GET', `/api/v1/sequences/${sequence.id}`, undefined],
      ['PATCH', `/api/v1/sequences/${sequence.id}`, { name: 'x' }],
      ['DELETE', `/api/v1/sequences/${sequence.id}`, undefined],
      ['GET', `/api/v1/sequences/${sequence.id}/enrollments`, undefined],
      ['POST', `/api/v1/sequences/${sequence.id}/enrollments`, { lead_ids: [lead.id] }],
      ['GET', `/api/v1/sequences/${sequence.id}/enrollments/${enrollment.id}`, undefined],
      ['POST', `/api/v1/sequences/${sequence.id}/enrollments/${enrollment.id}/stop`, undefined],
      ['GET', `/api/v1/leads/${lead.id}/enrollments`, undefined],
      // Their own sequence, but my lead: no such lead.
      ['POST', `/api/v1/sequences/${theirSequence.id}/enrollments`, { lead_ids: [lead.id] }],
    ] as const) {
      const response = await h.request(otherOrg, method, url, payload);
      assert.equal(response.statusCode, 404, `${method} ${url}`);
      assert.equal(response.json().error.code, 'not_found');
    }
    assert.equal((await enrollmentOf(sequence.id, enrollment.id)).status, 'active');
    await assert.rejects(
      h.deps.bus.call(leadsRpc.unenroll, otherOrg, { sequence_id: sequence.id, enrollment_id: enrollment.id }),
      (error: unknown) => error instanceof ApiError && error.code === 'not_found',
    );
  });
});

// Approval events delivered before issue 28 carry ids outside the published pattern (evt_req_apr_…), which
// made the delivery log answer 500; the migration 20261127060000_approval_event_ids gives each the id the mcp
// service now derives for it. Run here again on rows written the old way.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { eventId } from '@voice/kit';
import { gatewayHeaders } from '@voice/kit/testing';
import { type DeliveryStack, startDeliveryStack } from './support/harness.js';

const migration = new URL('../prisma/migrations/20261127060000_approval_event_ids/migration.sql', import.meta.url);

describe('approval events stored under the old ids', () => {
  let stack: DeliveryStack;

  before(async () => {
    stack = await startDeliveryStack();
  });
  after(async () => {
    await stack.close();
  });

  test('the migration gives them the derived evt_ id, in the row, the body and the deliveries; the log reads back', async () => {
    const { deps, identity, endpoint } = stack;
    const approvalId = 'apr_4f9XzQ2mN7bR1tY8kLp0';
    const old = { requested: `evt_req_${approvalId}`, resolved: `evt_res_${approvalId}` };
    for (const [kind, id] of Object.entries(old)) {
      const type = `approval.${kind}`;
      const body = JSON.stringify({ id, type, created_at: '2026-11-26T12:00:00.000Z', org_id: identity.org_id, data: { id: approvalId } });
      await deps.prisma.event.create({ data: { id, orgId: identity.org_id, type, body, createdAt: new Date() } });
      await deps.prisma.delivery.create({
        data: {
          id: `dlv_old${kind}000000000`,
          orgId: identity.org_id,
          endpointId: endpoint.id,
          eventId: id,
          eventType: type,
          status: 'succeeded',
        },
      });
    }
    const url = `/api/v1/webhooks/${endpoint.id}/deliveries`;
    const read = () => stack.app.inject({ method: 'GET', url, headers: gatewayHeaders(identity, 'GET', url) });
    assert.equal((await read()).statusCode, 500, 'the old ids break the log');

    await deps.prisma.$executeRawUnsafe(await readFile(migration, 'utf8'));

    const log = await read();
    assert.equal(log.statusCode, 200, log.body);
    const expected = { requested: eventId(`approval.requested:${approvalId}`), resolved: eventId(`approval.resolved:${approvalId}`) };
    const byType = Object.fromEntries(
      (log.json().data as Array<{ event_type: string; event_id: string }>).map((d) => [d.event_type, d.event_id]),
    );
    assert.deepEqual(byType, { 'approval.requested': expected.requested, 'approval.resolved': expected.resolved });
    for (const [kind, id] of Object.entries(expected)) {
      const oneUrl = `${url}/dlv_old${kind}000000000`;
      const one = await stack.app.inject({ method: 'GET', url: oneUrl, headers: gatewayHeaders(identity, 'GET', oneUrl) });
      assert.equal(one.statusCode, 200, one.body);
      assert.equal(one.json().event.id, id);
    }
    // Run again, it changes nothing.
    assert.equal(await deps.prisma.$executeRawUnsafe(await readFile(migration, 'utf8')), 0);
  });
});

import { answered, type OperationHandlers } from '@voice/kit';
import type { telephonyRpc } from '@voice/proto';
import type { TelephonyDeps } from './deps.js';
import { cancelCall, queueCall } from './domain/calls.js';
import { addDnc, checkDnc, removeDnc } from './domain/dnc.js';
import { callStats, getOverview } from './domain/overview.js';
import { toDncEntry, toSms } from './domain/records.js';
import { advanceCall, simulateInboundCall, simulateInboundSms } from './domain/simulation.js';
import { sendSms } from './domain/sms.js';
import { getCall, listCalls } from './store/calls.js';
import { findDncRow, listDnc } from './store/dnc.js';
import { findSmsRow, listSms } from './store/sms.js';

/** What each operation of `telephonyRpc` does, over REST and NATS alike (its definition says where and how). */
export function telephonyOperations(deps: TelephonyDeps): OperationHandlers<typeof telephonyRpc> {
  const { prisma } = deps;
  return {
    listCalls: (input, identity) => listCalls(prisma, identity.org_id, input),
    getCall: (input, identity) => getCall(prisma, identity.org_id, input.id),
    queueCall: (input, identity) => queueCall(deps, identity, input),
    cancelCall: (input, identity) => cancelCall(deps, identity.org_id, input.id),
    callStats: (input, identity) => callStats(deps, identity.org_id, input),
    getOverview: (input, identity) => getOverview(deps, identity.org_id, input),
    listSms: (input, identity) => listSms(prisma, identity.org_id, input),
    getSms: async (input, identity) => toSms(await findSmsRow(prisma, identity.org_id, input.id)),
    sendSms: (input, identity) => sendSms(deps, identity, input),
    listDnc: (input, identity) => listDnc(prisma, identity.org_id, input),
    getDnc: async (input, identity) => toDncEntry(await findDncRow(prisma, identity.org_id, input.id)),
    addDnc: async (input, identity) => {
      const { entry, created } = await addDnc(deps, identity, input);
      return answered(created ? 201 : 200, entry);
    },
    removeDnc: (input, identity) => removeDnc(deps, identity.org_id, input.id),
    checkDnc: (input, identity) => checkDnc(deps, identity.org_id, input.phone),
    // Test helpers (testOnly): the kit answers a live identity 404 before these run, so the organization is a test twin.
    advanceCall: (input, identity) => advanceCall(deps, identity.org_id, input),
    simulateInboundCall: (input, identity) => simulateInboundCall(deps, identity.org_id, input),
    simulateInboundSms: (input, identity) => simulateInboundSms(deps, identity.org_id, input),
  };
}

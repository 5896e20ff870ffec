import { telephonyRpc } from '@voice/proto';
import type { TelephonyDeps } from '../deps.js';
import { cancelCall, queueCall } from '../domain/calls.js';
import { addDnc, checkDnc, removeDnc } from '../domain/dnc.js';
import { callStats, getOverview } from '../domain/overview.js';
import { toDncEntry, toSms } from '../domain/records.js';
import { sendSms } from '../domain/sms.js';
import { getCall, listCalls } from '../store/calls.js';
import { findDncRow, listDnc } from '../store/dnc.js';
import { findSmsRow, listSms } from '../store/sms.js';

/** The same operations as the REST routes, for the MCP service and other services; `bus.serve` checks each one's scope. */
export function serveTelephonyRpc(deps: TelephonyDeps): void {
  const { bus, prisma } = deps;
  bus.serve(telephonyRpc.listCalls, (input, identity) => listCalls(prisma, identity.org_id, input));
  bus.serve(telephonyRpc.getCall, (input, identity) => getCall(prisma, identity.org_id, input.id));
  bus.serve(telephonyRpc.queueCall, async (input, identity) => (await queueCall(deps, identity, input)).body);
  bus.serve(telephonyRpc.cancelCall, (input, identity) => cancelCall(deps, identity.org_id, input.id));
  bus.serve(telephonyRpc.callStats, (input, identity) => callStats(deps, identity.org_id, input));
  bus.serve(telephonyRpc.getOverview, (input, identity) => getOverview(deps, identity.org_id, input));
  bus.serve(telephonyRpc.listSms, (input, identity) => listSms(prisma, identity.org_id, input));
  bus.serve(telephonyRpc.getSms, async (input, identity) => toSms(await findSmsRow(prisma, identity.org_id, input.id)));
  bus.serve(telephonyRpc.sendSms, async (input, identity) => (await sendSms(deps, identity, input)).body);
  bus.serve(telephonyRpc.listDnc, (input, identity) => listDnc(prisma, identity.org_id, input));
  bus.serve(telephonyRpc.getDnc, async (input, identity) => toDncEntry(await findDncRow(prisma, identity.org_id, input.id)));
  bus.serve(telephonyRpc.addDnc, async (input, identity) => (await addDnc(deps, identity, input)).entry);
  bus.serve(telephonyRpc.removeDnc, (input, identity) => removeDnc(deps, identity.org_id, input.id));
  bus.serve(telephonyRpc.checkDnc, (input, identity) => checkDnc(deps, identity.org_id, input.phone));
}

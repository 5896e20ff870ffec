import { requireScope } from '@voice/kit';
import { type Identity, telephonyRpc } from '@voice/proto';
import type { TelephonyDeps } from '../deps.js';
import { cancelCall, queueCall } from '../domain/calls.js';
import { addDnc, checkDnc, removeDnc } from '../domain/dnc.js';
import { toSms } from '../domain/records.js';
import { sendSms } from '../domain/sms.js';
import { callStats, getCall, listCalls } from '../store/calls.js';
import { listDnc } from '../store/dnc.js';
import { findSmsRow, listSms } from '../store/sms.js';

/** The gateway checks scopes for REST; over NATS the caller's identity is checked here as well. */
function writer(identity: Identity): Identity {
  requireScope(identity, 'read-write');
  return identity;
}

/** The same operations as the REST routes, for the MCP service and other services. */
export function serveTelephonyRpc(deps: TelephonyDeps): void {
  const { bus, prisma } = deps;
  bus.serve(telephonyRpc.listCalls, (input, identity) => listCalls(prisma, identity.org_id, input));
  bus.serve(telephonyRpc.getCall, (input, identity) => getCall(prisma, identity.org_id, input.id));
  bus.serve(telephonyRpc.queueCall, async (input, identity) => (await queueCall(deps, writer(identity), input)).body);
  bus.serve(telephonyRpc.cancelCall, (input, identity) => cancelCall(deps, writer(identity).org_id, input.id));
  bus.serve(telephonyRpc.callStats, (input, identity) => callStats(prisma, identity.org_id, input));
  bus.serve(telephonyRpc.listSms, (input, identity) => listSms(prisma, identity.org_id, input));
  bus.serve(telephonyRpc.getSms, async (input, identity) => toSms(await findSmsRow(prisma, identity.org_id, input.id)));
  bus.serve(telephonyRpc.sendSms, async (input, identity) => (await sendSms(deps, writer(identity), input)).body);
  bus.serve(telephonyRpc.listDnc, (input, identity) => listDnc(prisma, identity.org_id, input));
  bus.serve(telephonyRpc.addDnc, async (input, identity) => (await addDnc(deps, writer(identity), input)).entry);
  bus.serve(telephonyRpc.removeDnc, (input, identity) => removeDnc(deps, writer(identity).org_id, input.id));
  bus.serve(telephonyRpc.checkDnc, (input, identity) => checkDnc(deps, identity.org_id, input.phone));
}

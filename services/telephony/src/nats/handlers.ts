import { telephonyRpc } from '@voice/proto';
import type { TelephonyDeps } from '../deps.js';
import { getCall, listCalls } from '../store/calls.js';

/** The same operations as the REST routes, for the MCP service and other services. */
export function serveTelephonyRpc(deps: TelephonyDeps): void {
  const { bus, prisma } = deps;
  bus.serve(telephonyRpc.listCalls, (input, identity) => listCalls(prisma, identity.org_id, input));
  bus.serve(telephonyRpc.getCall, (input, identity) => getCall(prisma, identity.org_id, input.id));
}

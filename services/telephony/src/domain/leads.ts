import { ApiError, notFound } from '@voice/kit';
import { type Identity, leadsRpc } from '@voice/proto';
import type { TelephonyContext } from './context.js';

/** The leads-service records a call or message may point at, by the request field that names them. */
const references = [
  { param: 'lead_id', what: 'lead', rpc: leadsRpc.getLead },
  { param: 'workspace_id', what: 'workspace', rpc: leadsRpc.getWorkspace },
] as const;

/**
 * A call or message may point only at a lead or workspace of the caller's organization. Those records are
 * the leads service's, so it is asked (under the caller's identity, which scopes the lookup to that
 * organization) rather than trusting the id: another organization's record is as unknown as one that
 * never existed. Leads not answering is `unavailable`, never a pass.
 */
export async function assertOwnReferences(
  context: TelephonyContext,
  identity: Identity,
  request: { lead_id?: string | undefined; workspace_id?: string | undefined },
): Promise<void> {
  await Promise.all(
    references.map(async ({ param, what, rpc }) => {
      const id = request[param];
      if (id === undefined) return;
      try {
        await context.bus.call(rpc, identity, { id });
      } catch (error) {
        if (error instanceof ApiError && error.code === 'not_found') throw notFound(what, param);
        throw error;
      }
    }),
  );
}

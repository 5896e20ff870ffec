import { conversationsBetween } from '../store/sms.js';
import type { TelephonyContext } from './context.js';

export interface InboundRoute {
  orgId: string;
  leadId: string | null;
  workspaceId: string | null;
}

/**
 * The organizations a real inbound call or message to `ourNumber` from `theirNumber` belongs to, first the
 * one to file it under: the number's owner when configured (TELEPHONY_NUMBER_ORGS), then every live
 * organization that contacted the sender from that number, most recent first. Never a test twin: its calls
 * and messages were simulated, so nobody real is answering them (test mode's inbound traffic is made by the
 * simulator and filed under its twin directly, domain/simulation.ts).
 */
export async function routeInbound(
  context: Pick<TelephonyContext, 'env' | 'prisma'>,
  ourNumber: string,
  theirNumber: string,
): Promise<InboundRoute[]> {
  const conversations = await conversationsBetween(context.prisma, ourNumber, theirNumber, 'live');
  const owner = context.env.TELEPHONY_NUMBER_ORGS.get(ourNumber);
  if (!owner) return conversations;
  const ownConversation = conversations.find((conversation) => conversation.orgId === owner);
  return [
    ownConversation ?? { orgId: owner, leadId: null, workspaceId: null },
    ...conversations.filter((conversation) => conversation.orgId !== owner),
  ];
}

import { notFound } from '@voice/kit';
import { type ApprovalChannel, type ApprovalChannelKind, liveOrgOf } from '@voice/proto';
import type { ApprovalChannel as ChannelRow, ChannelLinkCode as LinkCodeRow, PrismaClient } from '../generated/prisma/client.js';

export type { ChannelRow, LinkCodeRow };

export function toChannel(row: ChannelRow): ApprovalChannel {
  return {
    object: 'approval_channel',
    kind: row.kind,
    chat_id: row.kind === 'telegram' ? row.target : null,
    channel_id: row.kind === 'slack' ? row.target : null,
    webhook_url_set: row.webhookUrl !== null,
    linked_by: row.linkedBy,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/**
 * Whose chats an organization's approvals go to: its live organization's. A test twin has no people of its
 * own (mode.ts: its members are the live one's), so its approvals ask the same approvers in the same chats,
 * marked test (approval-texts.ts), and a tap there decides them; its channels, listed, linked or unlinked
 * with a test credential, are the live organization's. No other organization's chat ever sees them.
 */
export const channelOwner = liveOrgOf;

export async function listChannels(prisma: PrismaClient, orgId: string): Promise<ChannelRow[]> {
  return prisma.approvalChannel.findMany({ where: { orgId: channelOwner(orgId) }, orderBy: { kind: 'asc' } });
}

export async function findChannel(prisma: PrismaClient, orgId: string, kind: ApprovalChannelKind): Promise<ChannelRow | null> {
  return prisma.approvalChannel.findUnique({ where: { orgId_kind: { orgId: channelOwner(orgId), kind } } });
}

/** Stores a new link code (its hash); rows that expired a day ago or more go at the same time. */
export async function insertLinkCode(
  prisma: PrismaClient,
  code: Omit<LinkCodeRow, 'usedAt' | 'usedIn' | 'createdAt'>,
  now: Date,
): Promise<void> {
  await prisma.$transaction([
    prisma.channelLinkCode.deleteMany({ where: { expiresAt: { lt: new Date(now.getTime() - 24 * 3600_000) } } }),
    prisma.channelLinkCode.create({ data: { ...code, orgId: channelOwner(code.orgId) } }),
  ]);
}

export type Redemption = { linked: ChannelRow; code: LinkCodeRow } | { refused: 'unknown' | 'used' | 'expired'; code?: LinkCodeRow };

/**
 * Uses a link code once: one conditional UPDATE claims it (of two senders of the same code, one wins), and
 * in the same transaction the chat becomes the organization's channel of that kind, replacing the one before.
 */
export async function redeemLinkCode(
  prisma: PrismaClient,
  input: { codeHash: string; kind: ApprovalChannelKind; target: string; linkedBy: string; now: Date },
): Promise<Redemption> {
  const { codeHash, kind, target, linkedBy, now } = input;
  return prisma.$transaction(async (tx) => {
    const { count } = await tx.channelLinkCode.updateMany({
      where: { codeHash, kind, usedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now, usedIn: target },
    });
    const code = await tx.channelLinkCode.findUnique({ where: { codeHash } });
    if (!code || code.kind !== kind) return { refused: 'unknown' as const };
    if (count === 0) return { refused: code.usedAt ? ('used' as const) : ('expired' as const), code };
    const data = { target, webhookUrl: code.webhookUrl, linkedBy };
    const linked = await tx.approvalChannel.upsert({
      where: { orgId_kind: { orgId: code.orgId, kind } },
      create: { orgId: code.orgId, kind, ...data },
      update: data,
    });
    return { linked, code };
  });
}

export async function deleteChannel(prisma: PrismaClient, orgId: string, kind: ApprovalChannelKind): Promise<void> {
  const { count } = await prisma.approvalChannel.deleteMany({ where: { orgId: channelOwner(orgId), kind } });
  if (count === 0) throw notFound(`${kind} approval channel`, 'kind');
}

import { notFound } from '@voice/kit';
import type { ApprovalChannel, ApprovalChannelKind } from '@voice/proto';
import type { ApprovalChannel as ChannelRow, PrismaClient } from '../generated/prisma/client.js';

export type { ChannelRow };

export function toChannel(row: ChannelRow): ApprovalChannel {
  return {
    object: 'approval_channel',
    kind: row.kind,
    chat_id: row.kind === 'telegram' ? row.target : null,
    channel_id: row.kind === 'slack' ? row.target : null,
    webhook_url_set: row.webhookUrl !== null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export async function listChannels(prisma: PrismaClient, orgId: string): Promise<ChannelRow[]> {
  return prisma.approvalChannel.findMany({ where: { orgId }, orderBy: { kind: 'asc' } });
}

export async function findChannel(prisma: PrismaClient, orgId: string, kind: ApprovalChannelKind): Promise<ChannelRow | null> {
  return prisma.approvalChannel.findUnique({ where: { orgId_kind: { orgId, kind } } });
}

export async function upsertChannel(
  prisma: PrismaClient,
  orgId: string,
  kind: ApprovalChannelKind,
  target: string,
  webhookUrl: string | null,
): Promise<ChannelRow> {
  return prisma.approvalChannel.upsert({
    where: { orgId_kind: { orgId, kind } },
    create: { orgId, kind, target, webhookUrl },
    update: { target, webhookUrl },
  });
}

export async function deleteChannel(prisma: PrismaClient, orgId: string, kind: ApprovalChannelKind): Promise<void> {
  const { count } = await prisma.approvalChannel.deleteMany({ where: { orgId, kind } });
  if (count === 0) throw notFound(`${kind} approval channel`, 'kind');
}

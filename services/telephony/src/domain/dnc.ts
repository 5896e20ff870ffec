import { ApiError } from '@voice/kit';
import type { AddDncInput, DncCheck, Identity } from '@voice/proto';
import { deleteDnc, deleteDncBySource, entriesForPhone, insertDnc } from '../store/dnc.js';
import type { TelephonyContext } from './context.js';
import { blocks, type ContactChannel } from './dnc-rules.js';
import { recordDncEvent, withEvents } from './events.js';
import { toDncEntry } from './records.js';

export async function checkDnc(context: Pick<TelephonyContext, 'prisma'>, orgId: string, phone: string): Promise<DncCheck> {
  const entries = await entriesForPhone(context.prisma, orgId, phone);
  const channels = entries.map((entry) => entry.channel);
  return {
    phone,
    listed: entries.length > 0,
    channels,
    blocks: { voice: blocks(channels, 'voice'), sms: blocks(channels, 'sms') },
    entries: entries.map(toDncEntry),
  };
}

/** Refuses a contact the do-not-call list forbids: 422 `dnc_blocked`, before anything is stored or sent. */
export async function assertContactAllowed(
  context: Pick<TelephonyContext, 'prisma'>,
  orgId: string,
  phone: string,
  channel: ContactChannel,
) {
  if (await isBlocked(context, orgId, phone, channel)) {
    const what = channel === 'voice' ? 'called' : 'sent messages';
    throw new ApiError('dnc_blocked', `${phone} is on the do-not-call list and cannot be ${what}.`, { param: 'to' });
  }
}

export async function isBlocked(context: Pick<TelephonyContext, 'prisma'>, orgId: string, phone: string, channel: ContactChannel) {
  const entries = await entriesForPhone(context.prisma, orgId, phone);
  return blocks(
    entries.map((entry) => entry.channel),
    channel,
  );
}

export async function addDnc(context: TelephonyContext, identity: Identity, input: AddDncInput) {
  const { row, created } = await withEvents(context, async (tx, events) => {
    const inserted = await insertDnc(tx, identity.org_id, {
      phone: input.phone,
      channel: input.channel,
      reason: input.reason ?? null,
      source: input.source,
      createdBy: identity.key_id,
    });
    if (inserted.created) recordDncEvent(events, 'dnc.added', inserted.row);
    return inserted;
  });
  return { entry: toDncEntry(row), created };
}

export async function removeDnc(context: TelephonyContext, orgId: string, id: string) {
  const row = await withEvents(context, async (tx, events) => {
    const deleted = await deleteDnc(tx, orgId, id);
    recordDncEvent(events, 'dnc.removed', deleted);
    return deleted;
  });
  return { id: row.id, object: 'dnc_entry' as const, deleted: true as const };
}

/** An inbound STOP: the sender opts out of messages from this organization. */
export async function optOutBySms(context: TelephonyContext, orgId: string, phone: string, keyword: string) {
  await withEvents(context, async (tx, events) => {
    const { row, created } = await insertDnc(tx, orgId, {
      phone,
      channel: 'sms',
      reason: `Replied ${keyword.trim().slice(0, 40).toUpperCase()} by SMS`,
      source: 'sms_stop',
      createdBy: null,
    });
    if (created) recordDncEvent(events, 'dnc.added', row);
  });
}

/** An inbound START after a STOP: lifts only what the STOP added, never a listing made by a person. */
export async function optInBySms(context: TelephonyContext, orgId: string, phone: string) {
  await withEvents(context, async (tx, events) => {
    for (const row of await deleteDncBySource(tx, orgId, phone, 'sms_stop')) recordDncEvent(events, 'dnc.removed', row);
  });
}

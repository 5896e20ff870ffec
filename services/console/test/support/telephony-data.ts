// Records of the real telephony service for the console's messages and do-not-call tests: written through
// the API where a test needs what the API does (events, idempotency), and straight into telephony's tables
// where it needs many of them at chosen times (paging, day boundaries), as the service itself would store them.
import assert from 'node:assert/strict';
import { bearer } from '@voice/gateway/testing';
import { type HttpApp, newId } from '@voice/kit';
import type { DncChannel, Sms } from '@voice/proto';
import type { TelephonyDeps } from '../../../telephony/src/deps.js';
import type { Browser } from './harness.js';

/** The platform number messages go out from (telephony's TELEPHONY_DEFAULT_FROM). */
export const ourNumber = '+15005550006';

export interface StoredSms {
  direction: 'inbound' | 'outbound';
  /** The other party's number. */
  phone: string;
  body?: string;
  status?: Sms['status'];
  at: Date;
  leadId?: string;
  segments?: number;
}

/** Messages stored as the service stores them, with the times given; returns their ids in the order given. */
export async function storeSms(telephony: TelephonyDeps, orgId: string, messages: StoredSms[]): Promise<string[]> {
  const ids: string[] = [];
  for (const message of messages) {
    const id = newId('sms');
    const inbound = message.direction === 'inbound';
    await telephony.prisma.sms.create({
      data: {
        id,
        orgId,
        direction: message.direction,
        fromNumber: inbound ? message.phone : ourNumber,
        toNumber: inbound ? ourNumber : message.phone,
        body: message.body ?? `Message ${id}`,
        segments: message.segments ?? 1,
        status: message.status ?? (inbound ? 'received' : 'delivered'),
        source: inbound ? 'inbound' : 'api',
        leadId: message.leadId ?? null,
        costAmount: inbound ? null : 1,
        costCurrency: inbound ? null : 'USD',
        createdAt: message.at,
        sentAt: message.at,
      },
    });
    ids.push(id);
  }
  return ids;
}

/** Do-not-call entries stored as the service stores them, with the times given; returns their ids. */
export async function storeDnc(
  telephony: TelephonyDeps,
  orgId: string,
  entries: Array<{ phone: string; channel?: DncChannel; reason?: string; at: Date }>,
): Promise<string[]> {
  const ids: string[] = [];
  for (const entry of entries) {
    const id = newId('dnc');
    await telephony.prisma.dncEntry.create({
      data: {
        id,
        orgId,
        phone: entry.phone,
        channel: entry.channel ?? 'all',
        reason: entry.reason ?? null,
        source: 'api',
        createdBy: 'key_storedbytest01',
        createdAt: entry.at,
      },
    });
    ids.push(id);
  }
  return ids;
}

/** `POST /api/v1/phone/dnc` with the organization's key, as a customer's code adds a number. */
export async function addDncWithKey(gateway: HttpApp, key: string, phone: string, channel: DncChannel = 'all') {
  const response = await gateway.inject({ method: 'POST', url: '/api/v1/phone/dnc', headers: bearer(key), payload: { phone, channel } });
  assert.ok([200, 201].includes(response.statusCode), response.body);
  return response.json() as { id: string };
}

/** `POST /api/v1/phone/sms` with the organization's key. */
export async function sendSmsWithKey(gateway: HttpApp, key: string, to: string, body: string) {
  const response = await gateway.inject({ method: 'POST', url: '/api/v1/phone/sms', headers: bearer(key), payload: { to, body } });
  assert.equal(response.statusCode, 201, response.body);
  return response.json() as Sms;
}

/** The hidden form key of the last page's form (one per rendered form). */
export function formKeyOf(body: string): string {
  const key = /name="form_key" value="([^"]+)"/.exec(body)?.[1];
  assert.ok(key, 'the page has a form key');
  return key;
}

/** The rows of a page's table or chat, in page order, by their `sms-…`/`dnc-…` ids. */
export const idsIn = (body: string, prefix: 'sms' | 'dnc') =>
  [...body.matchAll(new RegExp(`<(?:tr|li)[^>]* id="${prefix}-(${prefix}_[0-9A-Za-z]+)"`, 'g'))].map((match) => match[1] as string);

/** A link of the page by its id, with its `&amp;` made `&` again. */
export function hrefOf(body: string, id: string): string | undefined {
  const href = new RegExp(`<a id="${id}" href="([^"]+)"`).exec(body)?.[1];
  return href?.replaceAll('&amp;', '&');
}

/** Follows the page's link, the way a click does. */
export async function follow(browser: Browser, body: string, id: string) {
  const href = hrefOf(body, id);
  assert.ok(href, `the page has a link #${id}`);
  return browser.get(href);
}

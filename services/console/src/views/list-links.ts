import { dayIn } from '@voice/kit';
import type { ApprovalStatus, CallDirection, CallOutcome, CallStatus, LeadSource, LeadStatus, SmsStatus } from '@voice/proto';

/**
 * The addresses of the console's lists with their filters set: every page that links to a list (the
 * overview's figures, a call's lead, a message's conversation) builds the link here, so no list URL is spelt
 * twice. Filters follow the lists' GET forms; a filter left out (or empty) is "any".
 *
 * Days are whole calendar days of the person's time zone, both included (`from=2026-11-21&to=2026-11-27`).
 */
export interface DayRange {
  /** The first day, `YYYY-MM-DD`. */
  from: string;
  /** The last day, `YYYY-MM-DD` (included). */
  to: string;
}

/** The days a period [from, to) touches in `timeZone`: `to` is exclusive, so a period ending at midnight ends the day before. */
export function daysOf(timeZone: string, from: Date, to: Date): DayRange {
  return { from: dayIn(timeZone, from), to: dayIn(timeZone, new Date(Math.max(from.getTime(), to.getTime() - 1))) };
}

/** One day as a range (a bar of the overview's chart links to its day's calls). */
export const oneDay = (day: string): DayRange => ({ from: day, to: day });

export interface CallsFilters extends Partial<DayRange> {
  direction?: CallDirection;
  outcome?: CallOutcome;
  status?: CallStatus;
  lead_id?: string;
  /** Digits of the from or to number. */
  number?: string;
}

export interface MessagesFilters extends Partial<DayRange> {
  direction?: CallDirection;
  status?: SmsStatus;
  lead_id?: string;
}

export interface LeadsFilters extends Partial<DayRange> {
  /** Text in the name, e-mail, phone or company. */
  q?: string;
  status?: LeadStatus;
  qualified?: 'yes' | 'no';
  source?: LeadSource;
  workspace_id?: string;
}

export const callsPath = '/dashboard/calls';
export const messagesPath = '/dashboard/messages';
export const approvalsPath = '/dashboard/approvals';
export const leadsPath = '/dashboard/leads';

/** `path?key=value…` in the order given, leaving out what is not set. */
function withQuery(path: string, filters: Record<string, string | undefined>, order: readonly string[]): string {
  const query = new URLSearchParams();
  for (const key of order) {
    const value = filters[key];
    if (value !== undefined && value !== '') query.set(key, value);
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

/** The calls list: `/dashboard/calls?direction=&outcome=&status=&lead_id=&number=&from=&to=`. */
export const callsListHref = (filters: CallsFilters = {}) =>
  withQuery(callsPath, { ...filters }, ['direction', 'outcome', 'status', 'lead_id', 'number', 'from', 'to']);

/** One call's page. */
export const callHref = (callId: string) => `${callsPath}/${encodeURIComponent(callId)}`;

/** Where a new call is queued by hand. */
export const newCallHref = `${callsPath}/new`;

/** The messages list: `/dashboard/messages?direction=&status=&lead_id=&from=&to=`. */
export const messagesListHref = (filters: MessagesFilters = {}) =>
  withQuery(messagesPath, { ...filters }, ['direction', 'status', 'lead_id', 'from', 'to']);

/** The leads list: `/dashboard/leads?q=&status=&qualified=&source=&workspace_id=&from=&to=`. */
export const leadsListHref = (filters: LeadsFilters = {}) =>
  withQuery(leadsPath, { ...filters }, ['q', 'status', 'qualified', 'source', 'workspace_id', 'from', 'to']);

/** One lead's page. */
export const leadHref = (leadId: string) => `${leadsPath}/${encodeURIComponent(leadId)}`;

/** The approvals list: `/dashboard/approvals?status=`. */
export const approvalsListHref = (filters: { status?: ApprovalStatus } = {}) => withQuery(approvalsPath, { ...filters }, ['status']);

/** What a lead figure or a lead's name would open: one lead, or the leads qualified or created in some days. */
export type LeadsTarget = { lead: string } | { leads: 'qualified' | 'created'; days: DayRange };

/**
 * Where a lead figure or name links to: the lead's page, or the leads created in some days. Leads
 * *qualified* in some days have no list (the list filters by the day a lead was created, and a lead
 * created last month may be qualified today), so that figure stays text.
 */
export function leadsHref(target: LeadsTarget): string | undefined {
  if ('lead' in target) return leadHref(target.lead);
  return target.leads === 'created' ? leadsListHref(target.days) : undefined;
}

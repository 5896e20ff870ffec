import { ApiError } from '@voice/kit';
import {
  type ApprovalTool,
  dncChannels,
  e164Schema,
  type Identity,
  idSchema,
  leadsRpc,
  type RpcDefinition,
  telephonyRpc,
} from '@voice/proto';
import { z } from 'zod';
import type { McpDeps } from '../deps.js';
import { inToolTerms } from '../mcp/tool-errors.js';

/** Calls another service's operation as one identity: the tool's caller, or an approval's requester. */
export type Caller = <D extends RpcDefinition>(rpc: D, input: z.input<D['input']>) => Promise<z.output<D['output']>>;

/**
 * One action that waits for a person's approval: its arguments, how to describe it to the approver (which
 * also proves the target exists in the caller's organization), and how to run it once approved.
 */
export interface ApprovalAction<I extends z.ZodObject = z.ZodObject> {
  tool: ApprovalTool;
  /** The operation that runs once approved: it gives the tool its scope and must itself need approval. */
  operation: RpcDefinition;
  input: I;
  describe(call: Caller, args: z.output<I>): Promise<string>;
  execute(call: Caller, args: z.output<I>): Promise<Record<string, unknown>>;
}

function defineAction<I extends z.ZodObject>(action: ApprovalAction<I>): ApprovalAction {
  return action as unknown as ApprovalAction;
}

export function formatMoney(amountMinor: number, currency: string): string {
  try {
    // Minor units per currency differ (JPY has none); Intl knows them.
    const digits = new Intl.NumberFormat('en-US', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(amountMinor / 10 ** digits);
  } catch {
    return `${amountMinor} ${currency} (minor units)`;
  }
}

const deleteLead = defineAction({
  tool: 'service_delete_lead',
  operation: leadsRpc.deleteLead,
  input: z.object({ lead_id: idSchema('lead').describe('The lead to delete with its personal data') }),
  async describe(call, args) {
    const lead = await call(leadsRpc.getLead, { id: args.lead_id });
    const who = [lead.name, lead.company, lead.phone, lead.email].filter(Boolean).join(', ') || 'no name';
    return `Delete lead ${lead.id} (${who}) and its personal data. This cannot be undone.`;
  },
  async execute(call, args) {
    return call(leadsRpc.deleteLead, { id: args.lead_id });
  },
});

const removeDnc = defineAction({
  tool: 'service_remove_dnc',
  operation: telephonyRpc.removeDnc,
  input: z.object({
    phone: e164Schema.describe('The listed number to remove, E.164'),
    channel: z.enum(dncChannels).optional().describe('Remove only the entry for this channel; every entry of the number when omitted'),
  }),
  async describe(call, args) {
    const check = await call(telephonyRpc.checkDnc, { phone: args.phone });
    const entries = check.entries.filter((entry) => args.channel === undefined || entry.channel === args.channel);
    if (entries.length === 0) {
      throw new ApiError('not_found', `${args.phone} is not on the do-not-call list${args.channel ? ` for ${args.channel}` : ''}.`, {
        param: 'phone',
      });
    }
    const channels = entries.map((entry) => entry.channel).join(', ');
    return `Remove ${args.phone} from the do-not-call list (${channels}): the platform may call or text this number again.`;
  },
  async execute(call, args) {
    const check = await call(telephonyRpc.checkDnc, { phone: args.phone });
    const entries = check.entries.filter((entry) => args.channel === undefined || entry.channel === args.channel);
    if (entries.length === 0) throw new ApiError('not_found', `${args.phone} is no longer on the do-not-call list.`, { param: 'phone' });
    const removed: string[] = [];
    for (const entry of entries) removed.push((await call(telephonyRpc.removeDnc, { id: entry.id })).id);
    return { object: 'dnc_removal', phone: args.phone, removed_entry_ids: removed };
  },
});

const sendInvoice = defineAction({
  tool: 'service_send_invoice',
  operation: leadsRpc.sendInvoice,
  input: z.object({ invoice_id: idSchema('invoice').describe('The invoice to send to its customer') }),
  async describe(call, args) {
    const invoice = await call(leadsRpc.getInvoice, { id: args.invoice_id });
    if (invoice.status !== 'draft') {
      throw new ApiError('conflict', `Invoice ${invoice.id} is ${invoice.status}; only a draft invoice can be sent.`, {
        param: 'invoice_id',
      });
    }
    const lines = `${invoice.lines.length} line${invoice.lines.length === 1 ? '' : 's'}`;
    const due = invoice.due_date ? `, due ${invoice.due_date}` : '';
    return `Send invoice ${invoice.id} for ${formatMoney(invoice.total, invoice.currency)} (${lines}${due}) to its customer, lead ${invoice.lead_id ?? '(deleted)'}.`;
  },
  async execute(call, args) {
    return call(leadsRpc.sendInvoice, { id: args.invoice_id });
  },
});

const deliverProject = defineAction({
  tool: 'service_deliver_project',
  operation: leadsRpc.deliverProject,
  input: z.object({ project_id: idSchema('project').describe('The project to deliver to its customer') }),
  async describe(call, args) {
    const project = await call(leadsRpc.getProject, { id: args.project_id });
    if (project.status === 'delivered') {
      throw new ApiError('conflict', `Project ${project.id} was already delivered.`, { param: 'project_id' });
    }
    const deliverables = `${project.deliverables.length} deliverable${project.deliverables.length === 1 ? '' : 's'}`;
    return `Deliver project "${project.name}" (${project.id}, ${deliverables}) to its customer, lead ${project.lead_id ?? '(deleted)'}.`;
  },
  async execute(call, args) {
    return call(leadsRpc.deliverProject, { id: args.project_id });
  },
});

export const approvalActions: Record<ApprovalTool, ApprovalAction> = {
  service_delete_lead: deleteLead,
  service_remove_dnc: removeDnc,
  service_send_invoice: sendInvoice,
  service_deliver_project: deliverProject,
};

/** The operations an approval action calls, as the caller; their errors name the tool's arguments (inToolTerms). */
export function callerFor(deps: McpDeps, identity: Identity, args: Record<string, unknown>): Caller {
  return <D extends RpcDefinition>(rpc: D, input: z.input<D['input']>) =>
    deps.bus.call(rpc, identity, input).catch((error: unknown) => {
      throw inToolTerms(error, args, input);
    });
}

import { ApiError, type Bus } from '@voice/kit';
import type { Approval } from '@voice/proto';
import { approvalChannelKinds, approvalStatuses, approvalTools } from '@voice/proto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { approvalsFor, boundMemberName, type OrganizationApprovals, waitingApprovals } from '../domain/approvals.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { formOf } from '../http/forms.js';
import { sendPage } from '../http/pages.js';
import { paramsOf } from '../http/params.js';
import { signedInOf } from '../http/session.js';
import { approvalPage, approvalsPage, approvalsPath, linkCodePage, unlinkConfirmPage } from '../views/approvals.js';

const approvalParams = z.object({ id: z.string().min(1).max(64) });
const kindParams = z.object({ kind: z.enum(approvalChannelKinds) });
/** A filter of the GET form, whose "all" sends an empty value. */
const filter = <T extends readonly [string, ...string[]]>(values: T) =>
  z
    .union([z.literal(''), z.enum(values)])
    .optional()
    .transform((value) => value || undefined);
const listQuery = z.object({
  status: filter(approvalStatuses),
  tool: filter(approvalTools),
  cursor: z.string().min(1).max(512).optional(),
});
const decisionForm = z.object({ decision: z.enum(['approve', 'reject'], 'Choose approve or reject.') });
/** Slack's optional incoming-webhook URL; the mcp service checks it is Slack's. Telegram's form has no field. */
const linkForm = z.object({ webhook_url: z.string().trim().max(2048, 'The webhook URL is too long.').default('') });

/**
 * Refusals of a channel change the person can act on (a malformed id, a kind the platform has no app for,
 * a channel already unlinked), shown above the list rather than as an error page.
 */
const channelRefusals = new Set(['invalid_request', 'unavailable', 'not_found']);

/**
 * The organization's approvals of agents' destructive MCP actions, and the chats they are sent to. Both
 * are the mcp service's: every page and action is a NATS call for the signed-in person. Owners and admins
 * approve or reject on an approval's page, the third way beside Telegram and Slack taps, with the same
 * once-only rule (the mcp service's claim).
 */
export function approvalRoutes(app: FastifyInstance, ctx: { bus: Bus; prisma: PrismaClient }): void {
  const serviceFor = (request: FastifyRequest) => approvalsFor(ctx, signedInOf(request), request.id);
  /** An approval's page, naming the person it is bound to when it is someone else (who alone may decide). */
  const onePage = async (request: FastifyRequest, approval: Approval, options: { error?: string; info?: string } = {}) => {
    const signedIn = signedInOf(request);
    const bound = approval.bound_user_id;
    const boundTo = bound && bound !== signedIn.user.id ? await boundMemberName(ctx.prisma, signedIn.orgId, bound) : undefined;
    return approvalPage(signedIn, approval, { ...options, ...(boundTo ? { boundTo } : {}) });
  };
  const listPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    approvals: OrganizationApprovals,
    options: { status?: number; error?: string; filters?: z.output<typeof listQuery> } = {},
  ) => {
    const { cursor, ...filters } = options.filters ?? { status: undefined, tool: undefined };
    const [list, channels] = await Promise.all([approvals.page({ ...filters, ...(cursor ? { cursor } : {}) }), approvals.channels()]);
    const view = { approvals: list.data, filters, nextCursor: list.has_more ? list.next_cursor : null, channels };
    return sendPage(reply, options.status ?? 200, approvalsPage(signedInOf(request), view, { error: options.error }));
  };
  /**
   * A channel change: `done` answers with its result (by default, back to the channels section), or its
   * refusal is shown above the list.
   */
  const changeChannel = async <T>(
    request: FastifyRequest,
    reply: FastifyReply,
    work: (approvals: OrganizationApprovals) => Promise<T>,
    done: (result: T) => unknown = () => reply.redirect(`${approvalsPath}#channels`, 303),
  ) => {
    const approvals = await serviceFor(request);
    let result: T;
    try {
      result = await work(approvals);
    } catch (error) {
      if (!(error instanceof ApiError && channelRefusals.has(error.code))) throw error;
      return listPage(request, reply, approvals, { status: error.status, error: error.message });
    }
    return done(result);
  };

  app.get('/approvals', { config: { access: 'signed-in' } }, async (request, reply) => {
    const query = listQuery.safeParse(request.query ?? {});
    if (!query.success) {
      const param = String(query.error.issues[0]?.path[0] ?? 'status');
      throw new ApiError('invalid_request', `Unknown ${param} filter; choose one of the list.`, { param });
    }
    return listPage(request, reply, await serviceFor(request), { filters: query.data });
  });

  app.get('/approvals/:id', { config: { access: 'signed-in' } }, async (request, reply) => {
    const { id } = paramsOf(approvalParams, request.params);
    return sendPage(reply, 200, await onePage(request, await (await serviceFor(request)).get(id)));
  });

  // Owners and admins only (`manager`); a member's identity is `read` and the mcp service refuses it too.
  app.post('/approvals/:id/decide', { config: { access: 'manager' } }, async (request, reply) => {
    const { id } = paramsOf(approvalParams, request.params);
    const form = decisionForm.safeParse(formOf(request.body));
    if (!form.success) throw new ApiError('invalid_request', 'Choose approve or reject.', { param: 'decision' });
    const outcome = await (await serviceFor(request)).decide(id, form.data.decision);
    // The navigation counts what still waits, and this decision just changed it.
    const signedIn = signedInOf(request);
    const pendingApprovals = await waitingApprovals({ bus: ctx.bus, logger: request.log }, signedIn, request.id);
    if (pendingApprovals !== undefined) signedIn.pendingApprovals = pendingApprovals;
    // A decision that changed nothing (decided already, expired) is a conflict, shown with its reason.
    return sendPage(
      reply,
      outcome.acted ? 200 : 409,
      await onePage(request, outcome.approval, outcome.acted ? { info: outcome.notice } : { error: outcome.notice }),
    );
  });

  // A chat is linked by a one-time code sent from it, never by an id typed here (which any organization
  // could type). The code is shown once, in the answer to this POST (no redirect, `no-store`).
  app.post('/approvals/channels/:kind/link-code', { config: { access: 'manager' } }, (request, reply) => {
    const { kind } = paramsOf(kindParams, request.params);
    const form = linkForm.safeParse(formOf(request.body));
    return changeChannel(
      request,
      reply,
      (approvals) => {
        if (!form.success) throw new ApiError('invalid_request', form.error.issues[0]?.message ?? 'Check the form.');
        const { webhook_url } = form.data;
        return approvals.startLink({ kind, ...(kind === 'slack' && webhook_url ? { webhook_url } : {}) });
      },
      (code) => sendPage(reply, 200, linkCodePage(signedInOf(request), code)),
    );
  });

  // The confirmation is a page of its own, so unlinking needs no JavaScript; members get no such page.
  app.get('/approvals/channels/:kind/unlink', { config: { access: 'manager' } }, async (request, reply) => {
    const { kind } = paramsOf(kindParams, request.params);
    const signedIn = signedInOf(request);
    const channel = (await (await serviceFor(request)).channels()).data.find((linked) => linked.kind === kind);
    if (!channel) throw new ApiError('not_found', `No ${kind} channel is linked.`);
    return sendPage(reply, 200, unlinkConfirmPage(signedIn, channel));
  });

  app.post('/approvals/channels/:kind/unlink', { config: { access: 'manager' } }, (request, reply) => {
    const { kind } = paramsOf(kindParams, request.params);
    return changeChannel(request, reply, (approvals) => approvals.unlink(kind));
  });
}

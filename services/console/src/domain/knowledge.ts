import { ApiError, type Bus, type Logger } from '@voice/kit';
import { type BrandScoreInput, type CreateDocumentBody, idSchema, recallRpc, type UpdateDocumentBody } from '@voice/proto';
import { z } from 'zod';
import { afterTheFirst, audited } from './console-actions.js';
import { personOnGateway } from './identity.js';
import type { SignedIn } from './sessions.js';

/** Documents on one page of the knowledge list; earlier brand scores on one page of the history. */
export const documentsPageSize = 25;
export const brandScoresPageSize = 25;

/**
 * How long a page waits for an answer that waits on model providers (a grounded answer, a brand score): as
 * long as the MCP tools wait, and below the gateway's upstream timeout (60 s), so the person gets the
 * console's own page (an `unavailable` one) rather than the gateway's.
 */
export const providersDeadlineMs = 55_000;

/** A document id as the recall service makes them; anything else names no document (a 404 page). */
export const documentParams = z.object({ id: idSchema('document') });

/** A list's page cursor (opaque, the recall service's); empty means the first page. */
export const pageQuery = z.object({
  cursor: z.preprocess(
    (value) => (value === '' ? undefined : value),
    z.string().max(512, 'The page link is damaged; start again from the first page.').optional(),
  ),
});

/** Another organization's document, or one deleted meanwhile, is not in this knowledge base: a 404 page. */
export async function documentOrNotFound<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_found') {
      throw new ApiError('not_found', 'This document is not in your organization’s knowledge base (it may have been deleted).');
    }
    throw error;
  }
}

interface RecallConsoleContext {
  bus: Bus;
  logger: Logger;
}

/**
 * The recall service's knowledge-base and brand-score operations for one person and request, as the person
 * (`read-write` for owners and admins, `read` for members, whom the service refuses any change whatever the
 * page shows). Changes are audited with the person as actor.
 */
export async function recallFor(ctx: RecallConsoleContext, signedIn: SignedIn, requestId: string) {
  const { identity } = await personOnGateway(ctx, signedIn, requestId);
  const slow = { timeoutMs: providersDeadlineMs };
  return {
    list: (cursor: string | undefined) =>
      ctx.bus.call(recallRpc.listDocuments, identity, { limit: documentsPageSize, ...(cursor ? { cursor } : {}) }),
    get: (id: string) => documentOrNotFound(ctx.bus.call(recallRpc.getDocument, identity, { id })),
    /**
     * Adds a document once per form: the form's key, tied to the person, is the operation's idempotency key,
     * so a second submit of the same form returns the first document instead of adding another.
     */
    add: (document: CreateDocumentBody, formKey: string) =>
      audited(ctx, identity, { path: '/dashboard/knowledge', status: 201 }, () =>
        afterTheFirst(() =>
          ctx.bus.call(recallRpc.addDocument, identity, { ...document, idempotency_key: `console:${signedIn.user.id}:${formKey}` }),
        ),
      ),
    update: (id: string, changes: UpdateDocumentBody) =>
      audited(ctx, identity, { path: `/dashboard/knowledge/${id}`, status: 200 }, () =>
        documentOrNotFound(ctx.bus.call(recallRpc.updateDocument, identity, { id, changes })),
      ),
    remove: (id: string) =>
      audited(ctx, identity, { path: `/dashboard/knowledge/${id}/delete`, status: 200 }, () =>
        documentOrNotFound(ctx.bus.call(recallRpc.deleteDocument, identity, { id })),
      ),
    ask: (query: string) => ctx.bus.call(recallRpc.recall, identity, { query, limit: 5 }, slow),
    scoreBrand: (input: BrandScoreInput) => ctx.bus.call(recallRpc.brandScore, identity, input, slow),
    /** The organization's earlier scores, newest first, a page at a time. */
    brandScores: (cursor: string | undefined) =>
      ctx.bus.call(recallRpc.listBrandScores, identity, { limit: brandScoresPageSize, ...(cursor ? { cursor } : {}) }),
  };
}
export type OrganizationRecall = Awaited<ReturnType<typeof recallFor>>;

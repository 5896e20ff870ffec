import { ApiError, type Bus } from '@voice/kit';
import { knowledgeLimits, recallRpc } from '@voice/proto';
import type { FastifyInstance } from 'fastify';
import type { ConsoleContext } from '../domain/context.js';
import { pageQuery, recallFor } from '../domain/knowledge.js';
import { checkedQuery } from '../domain/messages.js';
import { formOf } from '../http/forms.js';
import { sendPage } from '../http/pages.js';
import { signedInOf } from '../http/session.js';
import { brandScorePage } from '../views/brand-score.js';

/** The refusals of the score form in words, by the field the operation names (`param`). */
const refusalWords: Record<string, string> = {
  brand: `Enter the brand’s name, at most ${knowledgeLimits.brandMaxLength} characters.`,
  url: 'Enter the brand’s website as an http:// or https:// address.',
};

/**
 * The brand score: a form and the card it answers with. Scoring is a read (the API's and MCP's
 * `svc.recall.brand_score`, scope `read`), so members score too. The operation answers when both providers
 * have (as the API does), so the POST waits for it, bounded by `providersDeadlineMs`: a page that never hangs,
 * answered with the card or, past the deadline, a 503 page. Nothing is written, so a resubmit only asks again.
 */
export function brandScoreRoutes(app: FastifyInstance, ctx: ConsoleContext & { bus: Bus }): void {
  app.get('/brand-score', { config: { access: 'signed-in', operation: recallRpc.listBrandScores } }, async (request, reply) => {
    const { cursor } = checkedQuery(pageQuery, request.query);
    const history = await (await recallFor(ctx, signedInOf(request), request.id)).brandScores(cursor);
    return sendPage(reply, 200, brandScorePage(signedInOf(request), { history: { page: history, firstPage: cursor === undefined } }));
  });

  app.post('/brand-score', { config: { access: 'signed-in', operation: recallRpc.brandScore } }, async (request, reply) => {
    const signedIn = signedInOf(request);
    const fields = formOf(request.body);
    const typed = { brand: fields.brand ?? '', url: fields.url?.trim() ?? '' };
    const recall = await recallFor(ctx, signedIn, request.id);
    const history = async () => ({ page: await recall.brandScores(undefined), firstPage: true });
    try {
      const result = await recall.scoreBrand(typed);
      return sendPage(reply, 200, brandScorePage(signedIn, { result, form: typed, history: await history() }));
    } catch (error) {
      const param = error instanceof ApiError && error.code === 'invalid_request' ? error.param : undefined;
      if (!param || !(param in refusalWords)) throw error;
      const form = { ...typed, errors: { [param]: refusalWords[param] } };
      return sendPage(reply, 400, brandScorePage(signedIn, { form, history: await history() }));
    }
  });
}

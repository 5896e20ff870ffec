import { ApiError, type HttpApp } from '@voice/kit';
import { slackInteractionSchema, verifySlackSignature } from '../channels/slack.js';
import { inBackground, type McpDeps } from '../deps.js';
import { decide, resolvedText } from '../domain/approvals.js';

const actions: Record<string, 'approve' | 'reject'> = { 'approval.approve': 'approve', 'approval.reject': 'reject' };

/**
 * Slack interactivity (button taps), verified by the app's signing secret over the raw body. Slack wants an
 * answer within 3 seconds: the tap is acknowledged at once, acted on after, and the outcome replaces the
 * message through the interaction's response_url.
 */
export async function slackHookRoutes(app: HttpApp, deps: McpDeps): Promise<void> {
  await app.register(async (scope) => {
    // The signature covers the body exactly as sent: it is checked on the raw text, and only a signed body
    // is parsed. No other parser (JSON's included) runs on these routes.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (request, body, done) => {
      const rawBody = body as string;
      const secret = deps.env.SLACK_SIGNING_SECRET;
      const header = (name: string) => {
        const value = request.headers[name];
        return typeof value === 'string' ? value : undefined;
      };
      const verified = secret
        ? verifySlackSignature(
            secret,
            { timestamp: header('x-slack-request-timestamp'), signature: header('x-slack-signature') },
            rawBody,
            deps.now(),
          )
        : { ok: false as const, reason: 'no signing secret configured' };
      if (!verified.ok) return done(new ApiError('unauthenticated', `Not a Slack request: ${verified.reason}.`));
      try {
        done(null, JSON.parse(new URLSearchParams(rawBody).get('payload') ?? ''));
      } catch {
        done(new ApiError('invalid_request', 'Slack interaction without a JSON payload.', { param: 'payload' }));
      }
    });
    scope.post('/api/hooks/slack/interactions', { schema: { hide: true }, config: { public: true } }, async (request, reply) => {
      // A request without a body never met the parser, so it was never verified.
      if (request.body === undefined) throw new ApiError('unauthenticated', 'Not a Slack request: no signed body.');
      const payload: unknown = request.body;
      const parsed = slackInteractionSchema.safeParse(payload);
      if (!parsed.success) throw new ApiError('invalid_request', 'Not a Slack interaction payload.', { param: 'payload' });
      const interaction = parsed.data;
      const action = interaction.actions.find((candidate) => candidate.action_id in actions);
      const responseUrl = interaction.response_url;
      if (interaction.type !== 'block_actions' || !action?.value || !responseUrl) return reply.status(200).send();
      const user = interaction.user;
      inBackground(deps, 'slack approval tap', async () => {
        const outcome = await decide(deps, {
          approvalId: action.value ?? '',
          decision: actions[action.action_id] ?? 'reject',
          via: 'slack',
          target: interaction.channel?.id ?? '',
          actor: `slack:${user.username ? `@${user.username}` : (user.name ?? 'user')} (id ${user.id})`,
        });
        if (outcome.acted && outcome.approval) await deps.slack.respond(responseUrl, resolvedText(outcome.approval), true);
        else await deps.slack.respond(responseUrl, outcome.notice, false);
      });
      return reply.status(200).send();
    });
  });
}

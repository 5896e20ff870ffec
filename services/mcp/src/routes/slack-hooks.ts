import { ApiError, type HttpApp } from '@voice/kit';
import { slackLinkCommand } from '@voice/proto';
import { slackCommandSchema, slackInteractionSchema, slackText, verifySlackSignature } from '../channels/slack.js';
import { inBackground, type McpDeps } from '../deps.js';
import { decide, resolvedText } from '../domain/approvals.js';
import { linkFromChat } from '../domain/channels.js';

const actions: Record<string, 'approve' | 'reject'> = { 'approval.approve': 'approve', 'approval.reject': 'reject' };

/**
 * Slack interactivity (button taps) and the `/approvals <code>` slash command that links a channel, both
 * verified by the app's signing secret over the raw body. Slack wants an answer within 3 seconds: a tap is
 * acknowledged at once, acted on after, and the outcome replaces the message through the interaction's
 * response_url; a link code is one short transaction, answered in the response itself.
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
      done(null, Object.fromEntries(new URLSearchParams(rawBody)));
    });
    scope.post('/api/hooks/slack/interactions', { schema: { hide: true }, config: { public: true } }, async (request, reply) => {
      // A request without a body never met the parser, so it was never verified.
      if (request.body === undefined) throw new ApiError('unauthenticated', 'Not a Slack request: no signed body.');
      let payload: unknown;
      try {
        payload = JSON.parse((request.body as Record<string, string>).payload ?? '');
      } catch {
        throw new ApiError('invalid_request', 'Slack interaction without a JSON payload.', { param: 'payload' });
      }
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
    scope.post('/api/hooks/slack/commands', { schema: { hide: true }, config: { public: true } }, async (request) => {
      if (request.body === undefined) throw new ApiError('unauthenticated', 'Not a Slack request: no signed body.');
      const parsed = slackCommandSchema.safeParse(request.body);
      if (!parsed.success) throw new ApiError('invalid_request', 'Not a Slack slash command.', { param: 'command' });
      const command = parsed.data;
      // `/approvals <code>` or `/approvals link <code>`; anything else is answered with how to use it.
      const code = /^(?:link\s+)?(\S{1,64})$/i.exec(command.text.trim())?.[1];
      if (!code) {
        return slackText(`Send ${slackLinkCommand} <code> here, with a link code from the console’s Approvals page, to link this channel.`);
      }
      const user = command.user_name ? `@${command.user_name}` : 'user';
      const outcome = await linkFromChat(deps, {
        kind: 'slack',
        code,
        target: command.channel_id,
        actor: `slack:${user} (id ${command.user_id})`,
      });
      // The channel sees that it was linked; a refusal is for the sender only.
      return slackText(outcome.reply, outcome.linked);
    });
  });
}

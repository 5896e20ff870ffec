import { ApiError, type HttpApp } from '@voice/kit';

/**
 * The approvals API's operations are served from `src/operations.ts`. What remains here are two retired
 * routes, kept so they explain themselves: linking by a chat or channel id proved nothing (any organization
 * could name another's chat, then send its approval requests there and have taps there decide them). A
 * person links a chat in the console, by sending a one-time code from it. The old routes say so, rather
 * than an unexplained 404.
 */
export function retiredChannelRoutes(app: HttpApp): void {
  for (const kind of ['telegram', 'slack'] as const) {
    app.put(`/api/v1/approvals/channels/${kind}`, { schema: { hide: true } }, async () => {
      throw new ApiError(
        'forbidden',
        `A ${kind === 'telegram' ? 'chat' : 'channel'} is no longer linked by its id. An owner or admin links it on the console’s ` +
          'Approvals page (/dashboard/approvals): it shows a one-time code to send to the bot from that chat.',
      );
    });
  }
}

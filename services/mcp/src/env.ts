import { baseEnvSchema, mailEnvFields, portSchema, publicAddress, requireSmtpInProduction, workersSchema } from '@voice/kit';
import { z } from 'zod';

const optionalSecret = z.string().min(1).optional();

export const envSchema = baseEnvSchema
  .extend({
    PORT: portSchema(8084),
    /**
     * Browser origins allowed to call /api/mcp, comma-separated (e.g. `https://app.example.com`). Empty: only
     * requests without an Origin header (servers, CLIs, desktop clients), which the MCP spec asks for to stop
     * DNS-rebinding attacks from web pages.
     */
    MCP_ALLOWED_ORIGINS: z
      .string()
      .default('')
      .transform((value) =>
        value
          .split(',')
          .map((origin) => origin.trim().replace(/\/$/, ''))
          .filter((origin) => origin.length > 0),
      ),
    /**
     * A plain tools/call is answered without building the SDK's server and transport for it
     * (src/mcp/direct-call.ts); `false` sends every request through the SDK, should the two ever disagree.
     */
    MCP_DIRECT_TOOL_CALLS: z.stringbool().default(true),
    /** How long an approval waits for a tap before it expires. */
    APPROVAL_TTL_SECONDS: z.coerce
      .number()
      .int()
      .min(60)
      .max(7 * 24 * 3600)
      .default(24 * 3600),
    /**
     * The platform's public address (the gateway's, where the console's pages are too): an approval names its
     * console page, `<PUBLIC_BASE_URL>/dashboard/approvals/<id>`, for a person to decide in the browser.
     */
    PUBLIC_BASE_URL: z
      .url({ protocol: /^https?$/ })
      .default(publicAddress(undefined))
      .transform((url) => url.replace(/\/+$/, '')),
    /** How often an MCP client should first poll an approval's task (`pollInterval` of tasks/get; it grows as the approval waits). */
    APPROVAL_TASK_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(5_000),
    /**
     * How long a tool call that showed its approval as a URL elicitation waits for the person's decision
     * before it returns pending_approval. Below 60 s by default: the SDK clients give up on a request after
     * 60 s unless told otherwise, and an agent is better served by pending_approval than by a timeout.
     */
    APPROVAL_ELICITATION_WAIT_MS: z.coerce
      .number()
      .int()
      .min(0)
      .max(15 * 60_000)
      .default(50_000),
    /** How often pending approvals past their expiry are marked `expired` (and their messages edited). */
    APPROVAL_SWEEP_INTERVAL_MS: z.coerce.number().int().positive().default(60_000),
    /**
     * Background work this process runs: `all`, `none` (an API-only replica) or a list of `approval-sweep`
     * (expires pending approvals) and `outbox` (publishes `approval.*` events).
     */
    WORKERS: workersSchema(['approval-sweep', 'outbox']),
    /** The Telegram bot that posts approval requests; one bot for the whole platform. */
    TELEGRAM_BOT_TOKEN: optionalSecret,
    /** Sent by Telegram in X-Telegram-Bot-Api-Secret-Token on every update (setWebhook's secret_token). */
    TELEGRAM_WEBHOOK_SECRET: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,256}$/, 'Telegram allows 1-256 characters A-Z, a-z, 0-9, _ and -')
      .optional(),
    TELEGRAM_API_BASE_URL: z.url().default('https://api.telegram.org'),
    /** The Slack app's bot token (xoxb-…), for chat.postMessage. */
    SLACK_BOT_TOKEN: optionalSecret,
    /** The Slack app's signing secret: interaction requests are signed with it. */
    SLACK_SIGNING_SECRET: optionalSecret,
    SLACK_API_BASE_URL: z.url().default('https://slack.com/api'),
    /** Deadline of one call to Telegram or Slack. */
    MESSAGING_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
    /** Each approval request is e-mailed to the organization's owners and admins (kit's mail.ts). */
    ...mailEnvFields('Voice approvals <approvals@localhost>'),
    /** Deadline of one NATS call to another service (a tool, or an approved action). */
    RPC_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  })
  // A bot without its verification secret would post requests whose taps are all refused. Neither channel is
  // needed to run, in production either: an organization links one to get approvals, linking is refused
  // (503) while the platform has none, and each callback route refuses every request without its secret.
  // E-mail is different: it is how an organization without a linked chat hears that an approval waits.
  .superRefine((env, context) => {
    requireSmtpInProduction(env, context, 'approval request e-mails');
    if (env.TELEGRAM_BOT_TOKEN && !env.TELEGRAM_WEBHOOK_SECRET) {
      context.addIssue({
        code: 'custom',
        path: ['TELEGRAM_WEBHOOK_SECRET'],
        message: 'required with TELEGRAM_BOT_TOKEN (setWebhook secret_token)',
      });
    }
    if (env.SLACK_BOT_TOKEN && !env.SLACK_SIGNING_SECRET) {
      context.addIssue({ code: 'custom', path: ['SLACK_SIGNING_SECRET'], message: 'required with SLACK_BOT_TOKEN (verifies button taps)' });
    }
  });

export type McpEnv = z.infer<typeof envSchema>;

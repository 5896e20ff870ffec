import type { Transporter } from 'nodemailer';
import { z } from 'zod';
import type { Logger } from './logger.js';

/**
 * One plain-text e-mail of the platform (the console's invitations and password resets, the mcp service's
 * approval requests): every message carries one link, the thing the person came for.
 */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** The message's link, written to the log when no SMTP server is configured. */
  link: string;
}

export interface Mailer {
  /**
   * Sends in the background and never rejects: a caller may answer at once, not waiting (a password reset
   * must not take longer for an account than for no account); a failure is logged. Resolves to whether the
   * SMTP server took the message (false when there is none: the message went to the log).
   */
  send(message: MailMessage): Promise<boolean>;
  /** Waits for the messages still on their way, then closes the SMTP connections. */
  close(): Promise<void>;
}

/** An SMTP server that does not answer must not hold a message (and the shutdown) for nodemailer's default minutes. */
const smtpTimeouts = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/** The two settings of a deployable that sends e-mail. */
export interface MailEnv {
  SMTP_URL?: string | undefined;
  MAIL_FROM: string;
}

/** `SMTP_URL` and `MAIL_FROM` for a deployable's env schema (`.extend(mailEnvFields(…))`), with its own From. */
export function mailEnvFields(defaultFrom: string) {
  return {
    /**
     * Where the deployable sends e-mail: `smtp://user:password@host:587` (STARTTLS when the server offers it)
     * or `smtps://…:465`. Unset, each message is written to the log with its link instead (development,
     * `npm start`); required in production (`requireSmtpInProduction`), where a link in a log reaches no one.
     */
    SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
    /** The From of its e-mail: an address, or `Name <address>`. */
    MAIL_FROM: z.string().min(3).max(320).default(defaultFrom),
  };
}

/**
 * In an env schema's `superRefine`: production without `SMTP_URL` does not start, naming it and what would
 * otherwise only reach the log (`what`), since a fallback to the log would lose that mail silently.
 */
export function requireSmtpInProduction(env: { NODE_ENV: string; SMTP_URL?: string | undefined }, context: z.RefinementCtx, what: string) {
  if (env.NODE_ENV === 'production' && !env.SMTP_URL) {
    context.addIssue({
      code: 'custom',
      path: ['SMTP_URL'],
      message: `is required in production: ${what} would otherwise only reach the log`,
    });
  }
}

/**
 * SMTP through nodemailer when `SMTP_URL` is set; without it (development, `npm start`) each message is
 * written to the log with its link, so a reset, an invitation or an approval can be followed locally. Each
 * sending deployable's env schema requires `SMTP_URL` in production.
 */
export function createMailer(env: MailEnv, logger: Logger): Mailer {
  const url = env.SMTP_URL;
  // nodemailer is loaded with the first message, not at start: most processes never send one, and its import
  // is a tenth of a second of every start otherwise.
  let transport: Promise<Transporter> | undefined;
  const transportOf = (smtpUrl: string) =>
    (transport ??= import('nodemailer').then((nodemailer) => nodemailer.default.createTransport({ url: smtpUrl, ...smtpTimeouts })));
  const inFlight = new Set<Promise<boolean>>();
  return {
    send(message) {
      if (!url) {
        logger.info({ to: message.to, subject: message.subject, link: message.link }, 'e-mail not sent (no SMTP_URL): its link is here');
        return Promise.resolve(false);
      }
      const sending = transportOf(url)
        .then((smtp) => smtp.sendMail({ from: env.MAIL_FROM, to: message.to, subject: message.subject, text: message.text }))
        .then(
          () => true,
          (error: unknown) => {
            logger.error({ err: error, subject: message.subject }, 'e-mail not sent');
            return false;
          },
        )
        .finally(() => inFlight.delete(sending));
      inFlight.add(sending);
      return sending;
    },
    async close() {
      await Promise.all(inFlight);
      if (transport) (await transport.catch(() => undefined))?.close();
    },
  };
}

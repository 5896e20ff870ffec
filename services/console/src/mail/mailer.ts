import type { Logger } from '@voice/kit';
import nodemailer from 'nodemailer';
import type { ConsoleEnv } from '../env.js';

/** One plain-text e-mail of the console: every message carries one link, the thing the person came for. */
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

/**
 * SMTP through nodemailer when `SMTP_URL` is set; without it (development, `npm start`) each message is
 * written to the log with its link, so a reset or an invitation can be followed locally. The env schema
 * requires `SMTP_URL` in production.
 */
export function createMailer(env: Pick<ConsoleEnv, 'SMTP_URL' | 'MAIL_FROM'>, logger: Logger): Mailer {
  const transport = env.SMTP_URL ? nodemailer.createTransport({ url: env.SMTP_URL, ...smtpTimeouts }) : undefined;
  const inFlight = new Set<Promise<boolean>>();
  return {
    send(message) {
      if (!transport) {
        logger.info({ to: message.to, subject: message.subject, link: message.link }, 'e-mail not sent (no SMTP_URL): its link is here');
        return Promise.resolve(false);
      }
      const sending = transport
        .sendMail({ from: env.MAIL_FROM, to: message.to, subject: message.subject, text: message.text })
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
      transport?.close();
    },
  };
}

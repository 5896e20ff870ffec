// A real SMTP server in the test's process (the `smtp-server` package): the console sends to it over TCP with
// nodemailer, as to a production server, and tests read what it received.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The whole message as sent (headers and body). */
  raw: string;
}

export interface TestMailServer {
  /** The `SMTP_URL` of this server. */
  url: string;
  received: ReceivedMail[];
  /** The next message to `to` not yet taken (waits for it); a hang here is caught by the test's timeout. */
  next(to: string): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/** The first link of a message's text: the one thing every console e-mail is for. */
export function linkIn(mail: ReceivedMail): string {
  const text = mail.raw.replace(/=\r?\n/g, '');
  const link = /https?:\/\/\S+/.exec(text)?.[0];
  if (!link) throw new Error(`no link in the message:\n${mail.raw}`);
  return link;
}

export async function startMailServer(): Promise<TestMailServer> {
  const received: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  const waiting: Array<() => void> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        for (const wake of waiting.splice(0)) wake();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    async next(to) {
      for (;;) {
        const mail = received.find((candidate) => !taken.has(candidate) && candidate.to.includes(to.toLowerCase()));
        if (mail) {
          taken.add(mail);
          return mail;
        }
        await new Promise<void>((resolve) => waiting.push(resolve));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

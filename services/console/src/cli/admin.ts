// Operator CLI of the console: the people who sign in. JSON on stdout; errors as JSON on stderr with exit
// code 1 (2 for a usage mistake). Reached as `npm run -s admin -- user …` (scripts/admin.mjs picks the owner).
// Organizations are the gateway's: an invitation is made only for one the gateway knows, asked over NATS.
//
//   npm run -s admin -- user invite --org ORG_ID --email E --role owner|admin|member
import { parseArgs } from 'node:util';
import { ApiError, Bus, createLogger, createMailer, parseEnv, prismaAdapter, publicAddress } from '@voice/kit';
import { idSchema } from '@voice/proto';
import { z } from 'zod';
import { type CreatedInvitation, createInvitation, mailInvitation } from '../domain/invitations.js';
import { organizationSeenBy } from '../domain/organizations.js';
import { roles } from '../domain/roles.js';
import { envSchema } from '../env.js';
import { PrismaClient } from '../generated/prisma/client.js';

const usage = `usage:
  admin user invite --org ORG_ID --email E --role owner|admin|member`;

function fail(code: string, message: string, exitCode: number): never {
  process.stderr.write(`${JSON.stringify({ error: { code, message } })}\n`);
  process.exit(exitCode);
}

const inviteOptions = z.object({
  org: idSchema('org'),
  email: z.email(),
  role: z.enum(roles as ['owner', 'admin', 'member']),
});

const { values, positionals } = (() => {
  try {
    return parseArgs({ allowPositionals: true, options: { org: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' } } });
  } catch (error) {
    return fail('invalid_request', `${(error as Error).message}\n${usage}`, 2);
  }
})();

const command = positionals.slice(0, 2).join(' ');
if (command !== 'user invite') fail('invalid_request', `unknown command "${command}"\n${usage}`, 2);
const parsed = inviteOptions.safeParse(values);
if (!parsed.success) {
  const problems = parsed.error.issues.map((issue) => `--${issue.path.join('.')}: ${issue.message}`).join('; ');
  fail('invalid_request', `${problems}\n${usage}`, 2);
}

// The link is the platform's public address: PUBLIC_BASE_URL, else the gateway's PORT, as for `npm start`
// (this process serves nothing, so PORT here can only mean the gateway's).
const env = parseEnv(envSchema, {
  ...process.env,
  PUBLIC_BASE_URL: publicAddress(process.env.PUBLIC_BASE_URL, process.env.PORT || undefined),
});

/**
 * The organization as the gateway knows it, or a failure naming why not. The operator asks as a person
 * acting for the console (`user_id` `operator`; the gateway's console operations take only people).
 */
async function knownOrganization(orgId: string) {
  const bus = await Bus.connect({
    url: env.NATS_URL,
    streamReplicas: env.JETSTREAM_REPLICAS,
    name: 'console-admin',
    namespace: env.NATS_NAMESPACE,
    logger: createLogger('console-admin', 'silent'),
    secret: env.INTERNAL_SIGNING_SECRET,
  }).catch((error: unknown) => fail('unavailable', `NATS does not answer at ${env.NATS_URL}: ${(error as Error).message}`, 1));
  try {
    return await organizationSeenBy(bus, orgId, 'operator');
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_found')
      fail(
        'not_found',
        `The gateway knows no organization ${orgId}. Create it first: npm run -s admin -- org create --name NAME --plan PLAN`,
        1,
      );
    if (error instanceof ApiError) fail(error.code, `The gateway could not check organization ${orgId}: ${error.message}`, 1);
    throw error;
  } finally {
    await bus.drain().catch(() => {});
  }
}

/**
 * Sends the invitation's e-mail and waits for the SMTP server's answer. Its logger is silent: stdout is this
 * command's JSON, and `emailed: false` there says the message did not go out.
 */
async function mailed(invitation: CreatedInvitation, organizationName: string): Promise<boolean> {
  const mailer = createMailer(env, createLogger('console-admin', 'silent'));
  try {
    return await mailInvitation(mailer, invitation, { organizationName });
  } finally {
    await mailer.close();
  }
}

const organization = await knownOrganization(parsed.data.org);
const prisma = new PrismaClient({ adapter: prismaAdapter(env.DATABASE_URL, 'console', { maxConnections: 2 }) });
try {
  const invitation = await createInvitation(
    { env, prisma, now: () => new Date() },
    { orgId: parsed.data.org, email: parsed.data.email, role: parsed.data.role, invitedBy: null },
  );
  // With an SMTP server the link is e-mailed too (`emailed` says whether it was taken); without one the
  // printed link is the only copy, as the log fallback would only repeat it among this JSON.
  const emailed = env.SMTP_URL ? await mailed(invitation, organization.name) : undefined;
  process.stdout.write(`${JSON.stringify({ ...invitation, ...(emailed === undefined ? {} : { emailed }) }, null, 2)}\n`);
} catch (error) {
  fail('internal', (error as Error).message, 1);
} finally {
  await prisma.$disconnect();
}

// Operator CLI of the console: the people who sign in. JSON on stdout; errors as JSON on stderr with exit
// code 1 (2 for a usage mistake). Reached as `npm run admin -- user …` (scripts/admin.mjs picks the owner).
//
//   npm run admin -- user invite --org ORG_ID --email E --role owner|admin|member
import { parseArgs } from 'node:util';
import { parseEnv, prismaAdapter } from '@voice/kit';
import { idSchema } from '@voice/proto';
import { z } from 'zod';
import { createInvitation } from '../domain/invitations.js';
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

const env = parseEnv(envSchema);
const prisma = new PrismaClient({ adapter: prismaAdapter(env.DATABASE_URL, 'console', { maxConnections: 2 }) });
try {
  const invitation = await createInvitation(
    { env, prisma, now: () => new Date() },
    { orgId: parsed.data.org, email: parsed.data.email, role: parsed.data.role, invitedBy: null },
  );
  process.stdout.write(`${JSON.stringify(invitation, null, 2)}\n`);
} catch (error) {
  fail('internal', (error as Error).message, 1);
} finally {
  await prisma.$disconnect();
}

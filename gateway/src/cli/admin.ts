// Operator CLI: organizations and API keys. JSON on stdout; errors as JSON on stderr with exit code 1
// (2 for a usage mistake). The raw key is printed once, at creation or rotation, and never stored.
//
//   npm run -s admin -- org create --name N --plan lite|starter|pro|enterprise
//   npm run -s admin -- org list
//   npm run -s admin -- org set-plan ORG_ID --plan P
//   npm run -s admin -- key create --org ORG_ID --scope read|read-write --quota N [--mode live|test]
//   npm run -s admin -- key list --org ORG_ID [--mode live|test]
//   npm run -s admin -- key rotate KEY_ID [--grace-seconds S]
//   npm run -s admin -- key revoke KEY_ID
import {
  ApiError,
  Bus,
  connectRedis,
  createLogger,
  exitWithError,
  parseCommandLine,
  parseEnv,
  prismaAdapter,
  UsageError,
} from '@voice/kit';
import { modeSchema, orgInMode, planSchema, scopeSchema } from '@voice/proto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { type AdminCommand, type RecordKeyEnd, runAdminCommand } from '../admin/commands.js';
import { envSchema } from '../env.js';
import { PrismaClient } from '../generated/prisma/client.js';
import { recordKeyEnd } from '../quota/quota.js';

const usage = `usage:
  admin org create --name N --plan lite|starter|pro|enterprise
  admin org list
  admin org set-plan ORG_ID --plan P
  admin key create --org ORG_ID --scope read|read-write --quota N [--mode live|test]
      (--mode test: a vk_test_ key of the organization's test twin, with test mode's own quota)
  admin key list --org ORG_ID [--mode live|test]
  admin key rotate KEY_ID [--grace-seconds S]
  admin key revoke KEY_ID
  admin user invite …          (the console's: people)
  admin dead-letters list|show|replay|delete …   (kit's: the events a consumer could not read)`;

const { values, positionals } = parseCommandLine(
  {
    name: { type: 'string' },
    plan: { type: 'string' },
    org: { type: 'string' },
    scope: { type: 'string' },
    quota: { type: 'string' },
    mode: { type: 'string' },
    'grace-seconds': { type: 'string' },
  },
  usage,
);

const env = parseEnv(envSchema);
const logger = createLogger('admin', 'silent');
const prisma = new PrismaClient({ adapter: prismaAdapter(env.DATABASE_URL, 'gateway', { maxConnections: 2 }) });
// Key changes are broadcast so every gateway replica drops its cached copy at once. Without NATS the
// change still lands: revocations and rotations reach replicas through Redis (below), plan changes when
// their cache entry expires (KEY_CACHE_TTL_MS).
const bus = await Bus.connect({
  url: env.NATS_URL,
  streamReplicas: env.JETSTREAM_REPLICAS,
  name: 'gateway-admin',
  namespace: env.NATS_NAMESPACE,
  logger,
  secret: env.INTERNAL_SIGNING_SECRET,
}).catch(() => undefined);
// Revocation and rotation also record the key's end in Redis, which every replica checks on each request:
// connected only by the commands that need it, and failing them loudly when Redis does not answer.
let redis: Promise<Redis> | undefined;
const recordEnd: RecordKeyEnd = async (end) => {
  redis ??= connectRedis(env, { failFast: true, startupTimeoutMs: 5_000 });
  await recordKeyEnd(await redis, { prefix: env.REDIS_PREFIX, ...end });
};
const run = (command: AdminCommand) => runAdminCommand(prisma, bus, command, recordEnd);

try {
  const [resource, verb, target] = positionals;
  const number = (name: string, raw: string | undefined, fallback?: number) => {
    if (raw === undefined) {
      if (fallback !== undefined) return fallback;
      throw new UsageError(`--${name} is required`);
    }
    const parsed = z.coerce.number().int().min(0).max(2_000_000_000).safeParse(raw);
    if (!parsed.success) throw new UsageError(`--${name} must be a whole number from 0 to 2000000000`);
    return parsed.data;
  };
  const required = (name: string, raw: string | undefined) => {
    if (raw === undefined || raw === '') throw new UsageError(`${name} is required`);
    return raw;
  };
  const command = `${resource ?? ''} ${verb ?? ''}`;
  const plan = () => {
    const parsed = planSchema.safeParse(values.plan);
    if (!parsed.success) throw new UsageError('--plan must be one of lite, starter, pro, enterprise');
    return parsed.data;
  };
  /** The organization of the chosen mode: the live one (the default) or its test twin (mode.ts in proto). */
  const orgOfMode = () => {
    const mode = modeSchema.safeParse(values.mode ?? 'live');
    if (!mode.success) throw new UsageError('--mode must be live or test');
    return orgInMode(required('--org', values.org), mode.data);
  };
  const scope = () => {
    const parsed = scopeSchema.safeParse(values.scope);
    if (!parsed.success) throw new UsageError('--scope must be read or read-write');
    return parsed.data;
  };
  const result = await (() => {
    switch (command) {
      case 'org create':
        return run({ kind: 'org.create', name: required('--name', values.name), plan: plan() });
      case 'org list':
        return run({ kind: 'org.list' });
      case 'org set-plan':
        return run({ kind: 'org.set-plan', orgId: required('ORG_ID', target ?? values.org), plan: plan() });
      case 'key create':
        return run({
          kind: 'key.create',
          orgId: orgOfMode(),
          scope: scope(),
          monthlyQuota: number('quota', values.quota),
        });
      case 'key list':
        return run({ kind: 'key.list', orgId: orgOfMode() });
      case 'key rotate':
        return run({
          kind: 'key.rotate',
          keyId: required('KEY_ID', target),
          graceSeconds: number('grace-seconds', values['grace-seconds'], 24 * 60 * 60),
        });
      case 'key revoke':
        return run({ kind: 'key.revoke', keyId: required('KEY_ID', target) });
      default:
        throw new UsageError(`unknown command "${command.trim()}"`);
    }
  })();
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} catch (error) {
  if (error instanceof UsageError) exitWithError('invalid_request', `${error.message}\n${usage}`, 2);
  if (error instanceof ApiError) exitWithError(error.code, error.message, 1);
  exitWithError('internal', (error as Error).message, 1);
} finally {
  await bus?.drain().catch(() => {});
  (await redis?.catch(() => undefined))?.disconnect();
  await prisma.$disconnect();
}

// Operator CLI of dead letters: the events a consumer could not read (packages/kit/src/dead-letters.ts). JSON on
// stdout; errors as JSON on stderr with exit code 1 (2 for a usage mistake). Reached as
// `npm run -s admin -- dead-letters …` (scripts/admin.mjs), in an image as `node packages/kit/dist/cli/dead-letters.js
// dead-letters …`. Needs only NATS: NATS_URL, NATS_NAMESPACE, JETSTREAM_REPLICAS as the services have them.
//
//   npm run -s admin -- dead-letters list [--consumer C] [--limit N]
//   npm run -s admin -- dead-letters show SEQ
//   npm run -s admin -- dead-letters replay SEQ
//   npm run -s admin -- dead-letters replay --all [--consumer C]
//   npm run -s admin -- dead-letters delete SEQ
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { z } from 'zod';
import { exitWithError, parseCommandLine, UsageError } from '../command-line.js';
import { DeadLetters } from '../dead-letters.js';
import { baseEnvSchema, parseEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { natsServer } from '../nats/server-url.js';

const usage = `usage:
  admin dead-letters list [--consumer C] [--limit N]
  admin dead-letters show SEQ
  admin dead-letters replay SEQ
  admin dead-letters replay --all [--consumer C]
  admin dead-letters delete SEQ`;

const { values, positionals } = parseCommandLine(
  { consumer: { type: 'string' }, limit: { type: 'string' }, all: { type: 'boolean' } },
  usage,
);

const env = (() => {
  try {
    return parseEnv(baseEnvSchema.pick({ NODE_ENV: true, NATS_URL: true, NATS_NAMESPACE: true, JETSTREAM_REPLICAS: true }));
  } catch (error) {
    return exitWithError('invalid_request', (error as Error).message, 2);
  }
})();

const [resource, verb, target, ...extra] = positionals;
const whole = (name: string, raw: string | undefined, options: { min: number; max: number }) => {
  const parsed = z.coerce.number().int().min(options.min).max(options.max).safeParse(raw);
  if (raw === undefined || raw === '' || !parsed.success)
    throw new UsageError(`${name} must be a whole number from ${options.min} to ${options.max}`);
  return parsed.data;
};
const seq = () => whole('SEQ', target, { min: 1, max: Number.MAX_SAFE_INTEGER });

let connection: NatsConnection | undefined;
try {
  if (resource !== 'dead-letters') throw new UsageError(`unknown command "${[resource, verb].filter(Boolean).join(' ')}"`);
  if (extra.length > 0) throw new UsageError(`unexpected ${extra.join(' ')}`);
  const consumer = values.consumer;
  if (consumer !== undefined && !/^[A-Za-z0-9_-]+$/.test(consumer))
    throw new UsageError('--consumer is a durable consumer name, e.g. webhooks-fanout');
  const run = async (work: (letters: DeadLetters) => Promise<unknown>) => {
    connection = await connect({ ...natsServer(env.NATS_URL), name: 'dead-letters-admin', timeout: 5_000 }).catch((error: unknown) => {
      throw new ApiError('unavailable', `NATS did not answer at ${natsServer(env.NATS_URL).servers}: ${(error as Error).message}`);
    });
    return work(new DeadLetters(connection, { namespace: env.NATS_NAMESPACE, replicas: env.JETSTREAM_REPLICAS }));
  };
  const result = await (() => {
    switch (verb) {
      case 'list': {
        const limit = values.limit === undefined ? 100 : whole('--limit', values.limit, { min: 1, max: 10_000 });
        if (target !== undefined) throw new UsageError(`unexpected ${target}`);
        return run((letters) => letters.list({ ...(consumer ? { consumer } : {}), limit }));
      }
      case 'show':
        return run((letters) => letters.get(seq()));
      case 'replay':
        if (values.all) {
          if (target !== undefined) throw new UsageError('replay takes SEQ or --all, not both');
          return run((letters) => letters.replayAll(consumer ? { consumer } : {}));
        }
        if (consumer !== undefined) throw new UsageError('--consumer goes with --all');
        return run((letters) => letters.replay(seq()));
      case 'delete':
        return run((letters) => letters.delete(seq()));
      default:
        throw new UsageError(`unknown command "dead-letters ${verb ?? ''}"`);
    }
  })();
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} catch (error) {
  await connection?.close().catch(() => {});
  if (error instanceof UsageError) exitWithError('invalid_request', `${error.message}\n${usage}`, 2);
  if (error instanceof ApiError) exitWithError(error.code, error.message, 1);
  exitWithError('internal', (error as Error).message, 1);
}
await connection?.close().catch(() => {});

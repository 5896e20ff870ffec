import { ApiError, type Bus, idempotent, type Logger, toApiError } from '@voice/kit';
import { gatewayRpc, type Identity } from '@voice/proto';
import type { Redis } from 'ioredis';
import { newToken } from './tokens.js';

/**
 * A person's action in the console on another service's data (an SMS sent, a do-not-call entry added or
 * removed), run through that service's own operation (so it fires the same events and webhooks as the API)
 * and recorded in the gateway's audit log with the person as actor, as the gateway records keys and grants:
 * `actor_type` `user`, their user id in `key_id`, `POST` and the console address of the action. What the
 * operation answered is recorded, a refusal's status included (a do-not-call number is a 422), as the API's
 * calls are. Recording is after the action: a gateway that does not answer is logged and leaves the action
 * done, never undone.
 */
export async function audited<T>(
  ctx: { bus: Bus; logger: Logger },
  identity: Identity,
  action: { path: string; status: number },
  work: () => Promise<T>,
): Promise<T> {
  const startedAt = Date.now();
  let status = action.status;
  try {
    return await work();
  } catch (error) {
    status = toApiError(error).status;
    throw error;
  } finally {
    const latency_ms = Math.min(3_600_000, Math.max(0, Date.now() - startedAt));
    await ctx.bus
      .call(gatewayRpc.recordConsoleAction, identity, { path: action.path, status, latency_ms })
      .catch((error: unknown) => ctx.logger.error({ err: error, path: action.path, status }, 'console action not audited'));
  }
}

/**
 * One key per rendered form that sends or adds something, in a hidden field: a second submit of the same form
 * (a double click, a reload that posts again) is the same request, done once. 256 random bits, as a token.
 */
export const newFormKey = newToken;
const formKeyPattern = /^[A-Za-z0-9_-]{43}$/;
export const isFormKey = (value: unknown): value is string => typeof value === 'string' && formKeyPattern.test(value);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs an idempotent change; a second submit of a form that arrives while the first is still being done is
 * told `conflict` (the key is claimed, its answer not yet written): it waits for the first to finish (up to a
 * few seconds) and answers with its result, so both submits lead to the same page.
 */
export async function afterTheFirst<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      const inProgress = error instanceof ApiError && error.code === 'conflict' && error.param === 'Idempotency-Key';
      if (!inProgress || attempt >= 15) throw error;
      await sleep(200);
    }
  }
}

/**
 * Runs a change once per rendered form, for operations that take no idempotency key of their own: the form's
 * key (tied to the person) claims the change in Redis as kit's idempotency does for the API, so a second
 * submit returns the first answer, and one that arrives while the first runs waits for it (`afterTheFirst`).
 */
export async function oncePerForm<T>(
  ctx: { redis: Redis; env: { REDIS_PREFIX: string } },
  form: { orgId: string; userId: string; operation: string; formKey: string; fingerprint: unknown },
  work: () => Promise<T>,
): Promise<T> {
  const done = await afterTheFirst(() =>
    idempotent(
      {
        redis: ctx.redis,
        prefix: ctx.env.REDIS_PREFIX,
        orgId: form.orgId,
        operation: form.operation,
        key: `${form.userId}:${form.formKey}`,
        fingerprint: form.fingerprint,
      },
      async () => ({ status: 200, body: await work() }),
    ),
  );
  return done.body;
}

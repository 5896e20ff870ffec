import type { Msg } from '@nats-io/nats-core';
import { type Identity, type RpcDefinition, type RpcReply, rpcRequestSchema } from '@voice/proto';
import type { z } from 'zod';
import { ApiError, dependencyReason, toApiError } from '../errors.js';
import { natsSignatureHeader, verifyNatsRequest } from '../identity.js';
import { requireMode, requireScope } from '../service-auth.js';
import { findNulCharacter } from '../text.js';
import { activeSpan, contextFromNats, inSpan, markFailed, spanKind } from '../trace.js';
import type { BusConnection } from './connection.js';
import { jsonPayload, parsePayload } from './payload.js';
import type { RpcObserver } from './rpc-observer.js';

export type RpcHandler<D extends RpcDefinition> = (input: z.output<D['input']>, identity: Identity) => Promise<z.input<D['output']>>;

/**
 * The serving side of request/reply: answers the operations this process serves, refusing any request not
 * signed with the secret, and replying with the result or the error as `{code, message}`.
 */
export class RpcResponder {
  private observer: RpcObserver | undefined;

  constructor(
    private readonly bus: BusConnection,
    private readonly secret: string,
  ) {}

  /** Reports every request answered from now on to `observer`. */
  observe(observer: RpcObserver): void {
    this.observer = observer;
  }

  serve<D extends RpcDefinition>(definition: D, handler: RpcHandler<D>): void {
    const subject = this.bus.subject(definition.subject);
    this.bus.connection.subscribe(subject, {
      queue: subject,
      callback: (error, message) => {
        if (error) {
          this.bus.logger.error({ err: error, subject: definition.subject }, 'subscription error');
          return;
        }
        void this.answerTraced(definition, handler, message);
      },
    });
  }

  /** Answers in a server span that continues the caller's trace (its `traceparent` header), when tracing is on. */
  private answerTraced<D extends RpcDefinition>(definition: D, handler: RpcHandler<D>, message: Msg): Promise<void> {
    const parent = contextFromNats(message.headers);
    if (!parent) return this.answer(definition, handler, message);
    return inSpan(
      `process ${definition.subject}`,
      { kind: spanKind.server, parent, attributes: this.bus.messagingAttributes(definition.subject, 'process') },
      () => this.answer(definition, handler, message),
    );
  }

  private async answer<D extends RpcDefinition>(definition: D, handler: RpcHandler<D>, message: Msg): Promise<void> {
    const started = performance.now();
    let reply: RpcReply;
    try {
      try {
        verifyNatsRequest(message.headers?.get(natsSignatureHeader), message.subject, message.data, this.secret);
      } catch (error) {
        // The reason only (missing, expired, does not match): never the payload or the signature.
        this.bus.logger.warn({ subject: definition.subject, reason: (error as Error).message }, 'unsigned rpc request refused');
        throw error;
      }
      const request = rpcRequestSchema.parse(parsePayload(message.data));
      requireScope(request.identity, definition.scope);
      requireMode(request.identity, definition);
      const nulPath = findNulCharacter(request.input);
      if (nulPath !== undefined) throw new ApiError('invalid_request', `${nulPath} contains a NUL character.`, { param: nulPath });
      const parsed = definition.input.safeParse(request.input);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const param = issue?.path.join('.') || undefined;
        throw new ApiError('invalid_request', `${param ? `${param}: ` : ''}${issue?.message ?? 'invalid input'}`, param ? { param } : {});
      }
      // safeParse of a generic schema is typed loosely; the value is the schema's output by construction.
      const result = await handler(parsed.data as z.output<D['input']>, request.identity);
      reply = { ok: true, result: definition.output.parse(result) };
    } catch (error) {
      const apiError = toApiError(error);
      if (apiError.code === 'internal') this.bus.logger.error({ err: error, subject: definition.subject }, 'rpc handler failed');
      else if (apiError.status >= 500)
        this.bus.logger.warn({ reason: dependencyReason(error), subject: definition.subject }, apiError.message);
      reply = { ok: false, error: apiError.toWire() };
      markFailed(activeSpan(), apiError);
    }
    message.respond(jsonPayload(reply));
    this.observer?.served(definition.subject, reply.ok ? 'ok' : reply.error.code, (performance.now() - started) / 1000);
  }
}

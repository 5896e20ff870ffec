import { headers, type Msg, RequestError } from '@nats-io/nats-core';
import { type Identity, type RpcDefinition, rpcReplySchema } from '@voice/proto';
import type { z } from 'zod';
import { withDeadline } from '../deadline.js';
import { ApiError } from '../errors.js';
import { natsSignatureHeader, signNatsRequest } from '../identity.js';
import { injectIntoNats, inSpan, spanKind } from '../trace.js';
import type { BusConnection } from './connection.js';
import { jsonPayload, parsePayload } from './payload.js';
import type { RpcObserver } from './rpc-observer.js';

/** How one call is made (`Bus.call`). */
export interface CallOptions {
  /** The call's deadline; the bus's `requestTimeoutMs` when not given. */
  timeoutMs?: number;
  /**
   * Whether a request answered "no responders" is sent again within the deadline (the default: a responder
   * may be reconnecting). False for an answer that is a nicety: a service that is not deployed fails the call
   * at once rather than at its deadline.
   */
  awaitResponder?: boolean;
}

/** A request's deadline where the bus is given none (`requestTimeoutMs`). */
export const defaultRequestTimeoutMs = 5_000;

/** The first wait before a request answered "no responders" is sent again; it doubles up to 16 times this. */
const noRespondersRetryMs = 50;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The calling side of request/reply: signed requests, sent again only when no responder could have run them. */
export class RpcCaller {
  private observer: RpcObserver | undefined;
  private readonly requestTimeoutMs: number;

  constructor(
    private readonly bus: BusConnection,
    private readonly secret: string,
    requestTimeoutMs: number | undefined,
  ) {
    this.requestTimeoutMs = requestTimeoutMs ?? defaultRequestTimeoutMs;
  }

  /** Reports every request made from now on to `observer`. */
  observe(observer: RpcObserver): void {
    this.observer = observer;
  }

  call<D extends RpcDefinition>(
    definition: D,
    identity: Identity,
    input: z.input<D['input']>,
    options: CallOptions = {},
  ): Promise<z.output<D['output']>> {
    const started = performance.now();
    const called = inSpan(
      `send ${definition.subject}`,
      { kind: spanKind.client, attributes: this.bus.messagingAttributes(definition.subject, 'send') },
      () => this.callUntraced(definition, identity, input, options),
    );
    const observer = this.observer;
    if (!observer) return called;
    const seconds = () => (performance.now() - started) / 1000;
    return called.then(
      (result) => {
        observer.called(definition.subject, 'ok', seconds());
        return result;
      },
      (error: unknown) => {
        observer.called(definition.subject, error instanceof ApiError ? error.code : 'internal', seconds());
        throw error;
      },
    );
  }

  private async callUntraced<D extends RpcDefinition>(
    definition: D,
    identity: Identity,
    input: z.input<D['input']>,
    options: CallOptions,
  ): Promise<z.output<D['output']>> {
    const subject = this.bus.subject(definition.subject);
    const payload = jsonPayload({ identity, input });
    const deadline = Date.now() + (options.timeoutMs ?? this.requestTimeoutMs);
    let message: Msg;
    for (let attempt = 0; ; attempt++) {
      try {
        await withDeadline(this.bus.untilConnected(), Math.max(0, deadline - Date.now()), 'NATS did not reconnect before the deadline');
        // Signed per attempt: a signature's age is checked by the responder.
        const signed = headers();
        signed.set(natsSignatureHeader, signNatsRequest(subject, payload, this.secret));
        injectIntoNats(signed);
        message = await this.bus.connection.request(subject, payload, { timeout: Math.max(1, deadline - Date.now()), headers: signed });
        break;
      } catch (error) {
        const left = deadline - Date.now();
        if (error instanceof RequestError && error.isNoResponders() && left > 0 && options.awaitResponder !== false) {
          await sleep(Math.min(left, noRespondersRetryMs * 2 ** Math.min(attempt, 4)));
          continue;
        }
        const service = definition.subject.split('.')[1] ?? 'service';
        throw new ApiError('unavailable', `The ${service} service did not answer; retry shortly.`, { cause: error });
      }
    }
    const reply = rpcReplySchema.parse(parsePayload(message.data));
    if (!reply.ok) throw ApiError.fromWire(reply.error);
    return definition.output.parse(reply.result) as z.output<D['output']>;
  }
}

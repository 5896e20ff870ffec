import { type ErrorCode, type ErrorEnvelope, errorStatus, isErrorCode, type WireError } from '@voice/proto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { urlPath } from './text.js';

/** The one error class. Handlers throw it; one error handler (HTTP) or the RPC server (NATS) writes it out. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: ErrorCode;
  readonly param: string | undefined;
  /** Extra response headers, e.g. `Retry-After`. */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: { param?: string; headers?: Record<string, string>; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.param = options.param;
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return errorStatus[this.code];
  }

  toWire(): WireError {
    return this.param === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, param: this.param };
  }

  static fromWire(wire: WireError): ApiError {
    return new ApiError(wire.code, wire.message, wire.param === undefined ? {} : { param: wire.param });
  }
}

export const notFound = (what: string, param?: string) =>
  new ApiError('not_found', `No such ${what}.`, param === undefined ? {} : { param });

export function envelope(error: ApiError, requestId?: string): ErrorEnvelope {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.param === undefined ? {} : { param: error.param }),
      ...(requestId === undefined ? {} : { request_id: requestId }),
    },
  };
}

/** Turns any thrown value into an ApiError: our own pass through, framework errors map to the table. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (hasZodFastifySchemaValidationErrors(error)) {
    const first = error.validation[0];
    const where = error.validationContext ?? 'body';
    const path = first?.instancePath.replace(/^\//, '').replaceAll('/', '.') ?? '';
    // An unknown field is named by the field itself, so `param` points at what to remove.
    const unknownKeys = first?.keyword === 'unrecognized_keys' && Array.isArray(first.params.keys) ? first.params.keys.map(String) : [];
    if (unknownKeys.length > 0) {
      const param = path ? `${path}.${unknownKeys[0]}` : String(unknownKeys[0]);
      return new ApiError(
        'invalid_request',
        `Invalid ${where}: unknown field${unknownKeys.length > 1 ? 's' : ''} ${unknownKeys.join(', ')}.`,
        {
          param,
        },
      );
    }
    const param = path || where;
    return new ApiError('invalid_request', `Invalid ${where}: ${path ? `${path}: ` : ''}${first?.message ?? 'invalid value'}.`, {
      param,
    });
  }
  const fastifyError = error as Partial<FastifyError>;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_request', 'The request body is not valid JSON.', { param: 'body' });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', 'The request body is too large.', { param: 'body' });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('invalid_request', 'Send the body as application/json.', { param: 'content-type' });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('invalid_request', 'The Content-Length header does not match the body.');
    default:
      break;
  }
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    const code: ErrorCode =
      fastifyError.statusCode === 404 ? 'not_found' : fastifyError.statusCode === 413 ? 'payload_too_large' : 'invalid_request';
    return new ApiError(code, fastifyError.message ?? 'Invalid request.');
  }
  return new ApiError('internal', 'Something went wrong on our side. Retry, and tell us the request_id if it persists.', { cause: error });
}

/** Installs the one error handler and the 404 handler, so every response error is the envelope. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error);
    if (apiError.code === 'internal') request.log.error({ err: error }, 'unhandled error');
    else if (apiError.status >= 500) request.log.warn({ err: error, code: apiError.code }, apiError.message);
    void reply.status(apiError.status).headers(apiError.headers).send(envelope(apiError, request.id));
  });
  app.setNotFoundHandler((request, reply) => {
    const apiError = new ApiError('not_found', `No route ${request.method} ${urlPath(request.url)}.`);
    void reply.status(404).send(envelope(apiError, request.id));
  });
}

export { isErrorCode };

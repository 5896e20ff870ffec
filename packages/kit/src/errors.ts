import { type ErrorCode, type ErrorEnvelope, errorStatus, isErrorCode, type WireError } from '@voice/proto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { LingeringClose } from './lingering-close.js';
import { InputTooDeepError, urlPath } from './text.js';

/** The Retry-After of a 503 whose raiser did not choose one: outages worth retrying pass within seconds. */
export const unavailableRetryAfterSeconds = 1;

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
    // Every 503 says when to retry, wherever it was raised: headers do not cross NATS, so one rebuilt
    // from the wire gets it here too.
    this.headers =
      errorStatus[code] === 503 ? { 'retry-after': String(unavailableRetryAfterSeconds), ...options.headers } : (options.headers ?? {});
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

// Postgres SQLSTATEs of a server that cannot serve now: class 08 (connection exception) is matched by prefix;
// 57P01-57P03 a server shutting down, crashed or starting; 53300 too many connections.
const unavailableSqlStates = new Set(['57P01', '57P02', '57P03', '53300']);
// How Node reports a connection that could not be made or was lost (pg's own errors while connecting).
const socketErrorCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);
// Prisma: cannot reach the server, timed out reaching it, server closed the connection, no pooled connection in time.
const prismaUnavailableCodes = new Set(['P1001', 'P1002', 'P1017', 'P2024']);
// The driver adapter's error kinds (meta.driverAdapterError.cause.kind) for the same conditions.
const adapterUnavailableKinds = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
// pg and pg-pool raise these as plain Errors without a code; their texts are fixed in those libraries.
const pgConnectionMessages = new Set([
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
]);

function isUnavailableSqlState(code: unknown): boolean {
  return typeof code === 'string' && (code.startsWith('08') || unavailableSqlStates.has(code));
}

/**
 * Whether an error means the database (or the connection to it) is unavailable, rather than that the
 * query was wrong: recognised by pg's and Prisma's codes, through the chain of causes.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
    const candidate = current as {
      code?: unknown;
      errorCode?: unknown;
      syscall?: unknown;
      message?: unknown;
      meta?: { driverAdapterError?: { cause?: { kind?: unknown; code?: unknown; originalCode?: unknown } } };
      cause?: unknown;
    };
    const { code } = candidate;
    if (typeof code === 'string' && typeof candidate.syscall === 'string' && socketErrorCodes.has(code)) return true;
    if (prismaUnavailableCodes.has(code as string) || prismaUnavailableCodes.has(candidate.errorCode as string)) return true;
    const adapterCause = candidate.meta?.driverAdapterError?.cause;
    if (adapterCause) {
      if (adapterUnavailableKinds.has(adapterCause.kind as string)) return true;
      if (isUnavailableSqlState(adapterCause.originalCode ?? adapterCause.code)) return true;
    }
    // A pg DatabaseError carries the server's SQLSTATE and a severity.
    if (typeof (current as { severity?: unknown }).severity === 'string' && isUnavailableSqlState(code)) return true;
    if (code === undefined && pgConnectionMessages.has(candidate.message as string)) return true;
    current = candidate.cause;
  }
  return false;
}

// ioredis rejects with plain Errors carrying these fixed texts when it cannot serve a command now: the
// command outlived `commandTimeout`, or the connection is down and the offline queue is off (fail-fast).
const redisUnavailableMessages = new Set([
  'Command timed out',
  'Connection is closed.',
  "Stream isn't writeable and enableOfflineQueue options is false",
]);

/** Whether an error means Redis cannot serve now (timed out, disconnected, out of retries), not that a command was wrong. */
export function isRedisUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return error.name === 'MaxRetriesPerRequestError' || redisUnavailableMessages.has(error.message);
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
  if (isDatabaseUnavailable(error)) return new ApiError('unavailable', 'The database is unavailable; retry shortly.', { cause: error });
  if (isRedisUnavailable(error)) return new ApiError('unavailable', 'A backing store is unavailable; retry shortly.', { cause: error });
  if (error instanceof InputTooDeepError) return new ApiError('invalid_request', error.message, { param: error.field });
  const fastifyError = error as Partial<FastifyError>;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_request', 'The request body is not valid JSON.', { param: 'body' });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', 'The request body is too large.', { param: 'body' });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('invalid_request', 'This Content-Type is not accepted here; the API takes application/json.', {
        param: 'content-type',
      });
    case 'FST_ERR_BAD_URL':
      return new ApiError('invalid_request', 'The URL path is not valid percent-encoding.');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError('invalid_request', 'A path segment of the URL is too long.');
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

/**
 * What failed, in one short line for a warning: the code and the last line of the message (Prisma's first
 * lines point at our own call site) of the underlying error.
 */
export function dependencyReason(error: unknown): string {
  const underlying = error instanceof ApiError && error.cause !== undefined ? error.cause : error;
  if (!(underlying instanceof Error)) return String(underlying);
  const lines = underlying.message.split('\n').filter((line) => line.trim() !== '');
  const code = (underlying as { code?: unknown }).code;
  return `${typeof code === 'string' ? `${code}: ` : ''}${lines.at(-1)?.trim() ?? underlying.name}`;
}

/**
 * Installs the one error handler and the 404 handler, so every response error is the envelope. A refused
 * body's connection closes after the answer, with a lingering close (see LingeringClose).
 */
/** Whether the request declared a body that has not all arrived (a refusal before the body was read). */
function bodyStillArriving(request: FastifyRequest): boolean {
  const raw = request.raw;
  return !raw.complete && (raw.headers['transfer-encoding'] !== undefined || Number(raw.headers['content-length'] ?? 0) > 0);
}

export function installErrorHandling(app: FastifyInstance, lingeringClose: LingeringClose): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error);
    if (apiError.code === 'internal') request.log.error({ err: error }, 'unhandled error');
    else if (apiError.status >= 500) request.log.warn({ reason: dependencyReason(error), code: apiError.code }, apiError.message);
    // The rest of a refused body is not worth reading: the connection closes once the answer is written,
    // lingering (bounded) so the client reads it. Left open, Node's server would read and discard the rest
    // of the body without any bound before the connection could serve another request: a client with a
    // forged key (401) or over its rate (429) could stream into it forever. A body already read costs nothing.
    if (apiError.code === 'payload_too_large' || bodyStillArriving(request)) {
      void reply.header('connection', 'close');
      lingeringClose.after(request.raw);
    }
    void reply.status(apiError.status).headers(apiError.headers).send(envelope(apiError, request.id));
  });
  app.setNotFoundHandler((request, reply) => {
    const apiError = new ApiError('not_found', `No route ${request.method} ${urlPath(request.url)}.`);
    void reply.status(404).send(envelope(apiError, request.id));
  });
}

export { isErrorCode };

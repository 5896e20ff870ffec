import { type HttpApp, idempotencyKeyOf, identityOf, sendIdempotent } from '@voice/kit';
import {
  callPageSchema,
  callSchema,
  callStatsQuerySchema,
  callStatsSchema,
  errorEnvelopeSchema,
  idempotencyKeyHeadersSchema,
  idSchema,
  listCallsQuerySchema,
  queueCallBodySchema,
  telephonyRpc,
} from '@voice/proto';
import { z } from 'zod';
import type { TelephonyDeps } from '../deps.js';
import { cancelCall, queueCall } from '../domain/calls.js';
import { callStats } from '../domain/overview.js';
import { getCall, listCalls } from '../store/calls.js';

const callParams = z.object({ id: idSchema('call') });
const errors = { 400: errorEnvelopeSchema, 404: errorEnvelopeSchema, 409: errorEnvelopeSchema, 422: errorEnvelopeSchema };

export function callRoutes(app: HttpApp, deps: TelephonyDeps): void {
  app.get(
    '/api/v1/phone/calls',
    {
      schema: {
        tags: ['calls'],
        summary: 'List calls, newest first',
        querystring: listCallsQuerySchema,
        response: { 200: callPageSchema },
      },
      config: { operation: telephonyRpc.listCalls },
    },
    async (request) => listCalls(deps.prisma, identityOf(request).org_id, request.query),
  );

  app.get(
    '/api/v1/phone/calls/stats',
    {
      schema: {
        tags: ['calls'],
        summary: 'Count calls by outcome, direction and status over a period (default: the last 30 days)',
        querystring: callStatsQuerySchema,
        response: { 200: callStatsSchema },
      },
      config: { operation: telephonyRpc.callStats },
    },
    async (request) => callStats(deps, identityOf(request).org_id, request.query),
  );

  app.get(
    '/api/v1/phone/calls/:id',
    {
      schema: {
        tags: ['calls'],
        summary: 'Get one call with its transcript, summary and status timeline',
        params: callParams,
        response: { 200: callSchema },
      },
      config: { operation: telephonyRpc.getCall },
    },
    async (request) => getCall(deps.prisma, identityOf(request).org_id, request.params.id),
  );

  app.post(
    '/api/v1/phone/calls',
    {
      schema: {
        tags: ['calls'],
        summary: 'Queue an outbound call (refused with 422 dnc_blocked for do-not-call numbers)',
        description: 'Send an `Idempotency-Key` header to make retries safe: the same key and body queue one call.',
        headers: idempotencyKeyHeadersSchema,
        body: queueCallBodySchema,
        response: { 200: callSchema, 201: callSchema, ...errors },
      },
      config: { operation: telephonyRpc.queueCall },
    },
    async (request, reply) => {
      const input = { ...request.body, source: 'api' as const, idempotency_key: idempotencyKeyOf(request) };
      return sendIdempotent(reply, await queueCall(deps, identityOf(request), input));
    },
  );

  app.post(
    '/api/v1/phone/calls/:id/cancel',
    {
      schema: {
        tags: ['calls'],
        summary: 'Cancel a call that is queued or ringing (409 once answered or ended)',
        params: callParams,
        response: { 200: callSchema, ...errors },
      },
      config: { operation: telephonyRpc.cancelCall },
    },
    async (request) => cancelCall(deps, identityOf(request).org_id, request.params.id),
  );
}

import { type HttpApp, idempotencyKeyOf, identityOf, sendIdempotent } from '@voice/kit';
import {
  errorEnvelopeSchema,
  idempotencyKeyHeadersSchema,
  idSchema,
  listSmsQuerySchema,
  sendSmsBodySchema,
  smsPageSchema,
  smsSchema,
  telephonyRpc,
} from '@voice/proto';
import { z } from 'zod';
import type { TelephonyDeps } from '../deps.js';
import { toSms } from '../domain/records.js';
import { sendSms } from '../domain/sms.js';
import { findSmsRow, listSms } from '../store/sms.js';

export function smsRoutes(app: HttpApp, deps: TelephonyDeps): void {
  app.get(
    '/api/v1/phone/sms',
    {
      schema: { tags: ['sms'], summary: 'List messages, newest first', querystring: listSmsQuerySchema, response: { 200: smsPageSchema } },
      config: { operation: telephonyRpc.listSms },
    },
    async (request) => listSms(deps.prisma, identityOf(request).org_id, request.query),
  );

  app.get(
    '/api/v1/phone/sms/:id',
    {
      schema: { tags: ['sms'], summary: 'Get one message', params: z.object({ id: idSchema('sms') }), response: { 200: smsSchema } },
      config: { operation: telephonyRpc.getSms },
    },
    async (request) => toSms(await findSmsRow(deps.prisma, identityOf(request).org_id, request.params.id)),
  );

  app.post(
    '/api/v1/phone/sms',
    {
      schema: {
        tags: ['sms'],
        summary: 'Send an SMS (refused with 422 dnc_blocked for do-not-call numbers)',
        description: 'Send an `Idempotency-Key` header to make retries safe: the same key and body send one message.',
        headers: idempotencyKeyHeadersSchema,
        body: sendSmsBodySchema,
        response: { 200: smsSchema, 201: smsSchema, 400: errorEnvelopeSchema, 409: errorEnvelopeSchema, 422: errorEnvelopeSchema },
      },
      config: { operation: telephonyRpc.sendSms },
    },
    async (request, reply) => {
      const input = { ...request.body, source: 'api' as const, idempotency_key: idempotencyKeyOf(request) };
      return sendIdempotent(reply, await sendSms(deps, identityOf(request), input));
    },
  );
}

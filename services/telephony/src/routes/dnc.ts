import { type HttpApp, identityOf } from '@voice/kit';
import {
  addDncBodySchema,
  checkDncQuerySchema,
  deletedDncSchema,
  dncCheckSchema,
  dncEntrySchema,
  dncPageSchema,
  errorEnvelopeSchema,
  idSchema,
  listDncQuerySchema,
  telephonyRpc,
} from '@voice/proto';
import { z } from 'zod';
import type { TelephonyDeps } from '../deps.js';
import { addDnc, checkDnc, removeDnc } from '../domain/dnc.js';
import { listDnc } from '../store/dnc.js';

export function dncRoutes(app: HttpApp, deps: TelephonyDeps): void {
  app.get(
    '/api/v1/phone/dnc',
    {
      schema: {
        tags: ['dnc'],
        summary: 'List do-not-call entries, newest first',
        querystring: listDncQuerySchema,
        response: { 200: dncPageSchema },
      },
      config: { operation: telephonyRpc.listDnc },
    },
    async (request) => listDnc(deps.prisma, identityOf(request).org_id, request.query),
  );

  app.get(
    '/api/v1/phone/dnc/check',
    {
      schema: {
        tags: ['dnc'],
        summary: 'Is this number listed, and for which channels',
        querystring: checkDncQuerySchema,
        response: { 200: dncCheckSchema },
      },
      config: { operation: telephonyRpc.checkDnc },
    },
    async (request) => checkDnc(deps, identityOf(request).org_id, request.query.phone),
  );

  app.post(
    '/api/v1/phone/dnc',
    {
      schema: {
        tags: ['dnc'],
        summary: 'Add a number to the do-not-call list (201; 200 with the existing entry if already listed)',
        body: addDncBodySchema,
        response: { 200: dncEntrySchema, 201: dncEntrySchema, 400: errorEnvelopeSchema },
      },
      config: { operation: telephonyRpc.addDnc },
    },
    async (request, reply) => {
      const { entry, created } = await addDnc(deps, identityOf(request), { ...request.body, source: 'api' });
      return reply.status(created ? 201 : 200).send(entry);
    },
  );

  app.delete(
    '/api/v1/phone/dnc/:id',
    {
      schema: {
        tags: ['dnc'],
        summary: 'Remove a do-not-call entry',
        params: z.object({ id: idSchema('dnc') }),
        response: { 200: deletedDncSchema, 404: errorEnvelopeSchema },
      },
      config: { operation: telephonyRpc.removeDnc },
    },
    async (request) => removeDnc(deps, identityOf(request).org_id, request.params.id),
  );
}

import { type HttpApp, identityOf } from '@voice/kit';
import { callPageSchema, callSchema, idSchema, listCallsQuerySchema } from '@voice/proto';
import { z } from 'zod';
import type { TelephonyDeps } from '../deps.js';
import { getCall, listCalls } from '../store/calls.js';

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
      config: { scope: 'read' },
    },
    async (request) => listCalls(deps.prisma, identityOf(request).org_id, request.query),
  );

  app.get(
    '/api/v1/phone/calls/:id',
    {
      schema: {
        tags: ['calls'],
        summary: 'Get one call with its transcript and summary',
        params: z.object({ id: idSchema('call') }),
        response: { 200: callSchema },
      },
      config: { scope: 'read' },
    },
    async (request) => getCall(deps.prisma, identityOf(request).org_id, request.params.id),
  );
}

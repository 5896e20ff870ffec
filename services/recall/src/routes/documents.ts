import { type HttpApp, idempotencyKeyOf, identityOf, sendIdempotent } from '@voice/kit';
import {
  createDocumentBodySchema,
  deletedDocumentSchema,
  documentIdParamsSchema,
  documentPageSchema,
  documentSchema,
  idempotencyKeyHeadersSchema,
  listDocumentsQuerySchema,
  recallRpc,
  updateDocumentBodySchema,
} from '@voice/proto';
import type { RecallDeps } from '../deps.js';
import { addDocumentOperation } from '../operations.js';
import { deleteDocument, getDocument, listDocuments, updateDocument } from '../store/documents.js';

export function documentRoutes(app: HttpApp, deps: RecallDeps): void {
  app.post(
    '/api/v1/knowledge/documents',
    {
      schema: {
        tags: ['knowledge'],
        summary: 'Add a document to the knowledge base',
        description:
          'The text is split into passages and indexed for recall at once. Text over 200,000 characters is 400; a body over 1 MB is 413. ' +
          'Send an `Idempotency-Key` header to make retries safe: the same key and body add one document.',
        headers: idempotencyKeyHeadersSchema,
        body: createDocumentBodySchema,
        response: { 201: documentSchema },
      },
      config: { operation: recallRpc.addDocument },
    },
    async (request, reply) => {
      const input = { ...request.body, idempotency_key: idempotencyKeyOf(request) };
      return sendIdempotent(reply, await addDocumentOperation(deps, identityOf(request), input));
    },
  );

  app.get(
    '/api/v1/knowledge/documents',
    {
      schema: {
        tags: ['knowledge'],
        summary: 'List documents, newest first',
        querystring: listDocumentsQuerySchema,
        response: { 200: documentPageSchema },
      },
      config: { operation: recallRpc.listDocuments },
    },
    async (request) => listDocuments(deps.prisma, identityOf(request).org_id, request.query),
  );

  app.get(
    '/api/v1/knowledge/documents/:id',
    {
      schema: {
        tags: ['knowledge'],
        summary: 'Get one document with its text',
        params: documentIdParamsSchema,
        response: { 200: documentSchema },
      },
      config: { operation: recallRpc.getDocument },
    },
    async (request) => getDocument(deps.prisma, identityOf(request).org_id, request.params.id),
  );

  app.patch(
    '/api/v1/knowledge/documents/:id',
    {
      schema: {
        tags: ['knowledge'],
        summary: 'Change a document; a new title or text rebuilds its passages',
        params: documentIdParamsSchema,
        body: updateDocumentBodySchema,
        response: { 200: documentSchema },
      },
      config: { operation: recallRpc.updateDocument },
    },
    async (request) => updateDocument(deps.prisma, identityOf(request).org_id, request.params.id, request.body),
  );

  app.delete(
    '/api/v1/knowledge/documents/:id',
    {
      schema: {
        tags: ['knowledge'],
        summary: 'Delete a document and its passages',
        params: documentIdParamsSchema,
        response: { 200: deletedDocumentSchema },
      },
      config: { operation: recallRpc.deleteDocument },
    },
    async (request) => deleteDocument(deps.prisma, identityOf(request).org_id, request.params.id),
  );
}

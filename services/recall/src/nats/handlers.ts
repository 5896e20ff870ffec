import { requireScope } from '@voice/kit';
import { type Identity, recallRpc } from '@voice/proto';
import type { RecallDeps } from '../deps.js';
import { addDocumentOperation, brandScoreOperation, recallOperation } from '../operations.js';
import { deleteDocument, getDocument, listDocuments, updateDocument } from '../store/documents.js';

/** The gateway checks scopes for REST; over NATS the caller's identity is checked here as well. */
function writer(identity: Identity): Identity {
  requireScope(identity, 'read-write');
  return identity;
}

/** The same operations as the REST routes, for the MCP service (service_recall, service_brand_score, …). */
export function serveRecallRpc(deps: RecallDeps): void {
  const { bus, prisma } = deps;
  bus.serve(recallRpc.recall, (input, identity) => recallOperation(deps, identity, input));
  bus.serve(recallRpc.brandScore, (input, identity) => brandScoreOperation(deps, identity, input));
  bus.serve(recallRpc.addDocument, async (input, identity) => (await addDocumentOperation(deps, writer(identity), input)).body);
  bus.serve(recallRpc.listDocuments, (input, identity) => listDocuments(prisma, identity.org_id, input));
  bus.serve(recallRpc.getDocument, (input, identity) => getDocument(prisma, identity.org_id, input.id));
  bus.serve(recallRpc.updateDocument, (input, identity) => updateDocument(prisma, writer(identity).org_id, input.id, input.changes));
  bus.serve(recallRpc.deleteDocument, (input, identity) => deleteDocument(prisma, writer(identity).org_id, input.id));
}

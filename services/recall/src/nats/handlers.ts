import { recallRpc } from '@voice/proto';
import type { RecallDeps } from '../deps.js';
import { addDocumentOperation, brandScoreOperation, recallOperation } from '../operations.js';
import { listBrandScores } from '../store/brand-scores.js';
import { deleteDocument, getDocument, listDocuments, updateDocument } from '../store/documents.js';

/**
 * The same operations as the REST routes, for the MCP service (service_recall, service_brand_score, …);
 * `bus.serve` checks each one's scope.
 */
export function serveRecallRpc(deps: RecallDeps): void {
  const { bus, prisma } = deps;
  bus.serve(recallRpc.recall, (input, identity) => recallOperation(deps, identity, input));
  bus.serve(recallRpc.brandScore, (input, identity) => brandScoreOperation(deps, identity, input));
  bus.serve(recallRpc.addDocument, async (input, identity) => (await addDocumentOperation(deps, identity, input)).body);
  bus.serve(recallRpc.listDocuments, (input, identity) => listDocuments(prisma, identity.org_id, input));
  bus.serve(recallRpc.getDocument, (input, identity) => getDocument(prisma, identity.org_id, input.id));
  bus.serve(recallRpc.updateDocument, (input, identity) => updateDocument(prisma, identity.org_id, input.id, input.changes));
  bus.serve(recallRpc.deleteDocument, (input, identity) => deleteDocument(prisma, identity.org_id, input.id));
  bus.serve(recallRpc.listBrandScores, (input, identity) => listBrandScores(prisma, identity.org_id, input));
}

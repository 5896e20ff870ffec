import type { OperationHandlers } from '@voice/kit';
import type { gatewayRpc, oauthRpc } from '@voice/proto';
import { listAuditLog } from './audit/store.js';
import type { GatewayDeps } from './deps.js';
import {
  createKeyFor,
  keyFor,
  keysFor,
  organizationFor,
  recordConsoleActionFor,
  renameOrganizationFor,
  revokeKeyFor,
  rotateKeyFor,
  usageHistoryFor,
} from './keys/console.js';
import { keyStanding } from './keys/store.js';
import { createGrantFor, endGrantFor, grantsFor, issueAccessTokenFor, revokeGrantFor, revokeGrantsOfPersonFor } from './oauth/grants.js';
import { usageOf } from './quota/usage.js';

/** The gateway's own operations: usage and the audit log (also on REST), the organization and its keys for the console. */
export function gatewayOperations(deps: GatewayDeps): OperationHandlers<typeof gatewayRpc> {
  return {
    keyStanding: (input, identity) => keyStanding(deps.prisma, identity.org_id, input.key_id, deps.now()),
    getUsage: (_input, identity) => usageOf(deps, identity),
    listAuditLog: (input, identity) => listAuditLog(deps.prisma, identity.org_id, input),
    getUsageHistory: (_input, identity) => usageHistoryFor(deps, identity),
    getOrganization: (_input, identity) => organizationFor(deps, identity),
    renameOrganization: (input, identity) => renameOrganizationFor(deps, identity, input),
    listKeys: (input, identity) => keysFor(deps, identity, input),
    getKey: (input, identity) => keyFor(deps, identity, input),
    createKey: (input, identity) => createKeyFor(deps, identity, input),
    rotateKey: (input, identity) => rotateKeyFor(deps, identity, input),
    revokeKey: (input, identity) => revokeKeyFor(deps, identity, input),
    recordConsoleAction: (input, identity) => recordConsoleActionFor(deps, identity, input),
  };
}

/** OAuth grants and access tokens, for the console's consent and connected-apps pages. */
export function oauthOperations(deps: GatewayDeps): OperationHandlers<typeof oauthRpc> {
  return {
    createGrant: (input, identity) => createGrantFor(deps, identity, input),
    issueAccessToken: (input, identity) => issueAccessTokenFor(deps, identity, input),
    listGrants: (_input, identity) => grantsFor(deps, identity),
    revokeGrant: (input, identity) => revokeGrantFor(deps, identity, input),
    endGrant: (input, identity) => endGrantFor(deps, identity, input),
    revokeGrantsOfPerson: (input, identity) => revokeGrantsOfPersonFor(deps, identity, input),
  };
}

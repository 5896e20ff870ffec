import { consoleRpc } from './console.js';
import { gatewayRpc } from './gateway.js';
import { leadsRpc } from './leads.js';
import { mcpRpc } from './mcp.js';
import { oauthRpc } from './oauth.js';
import { publicMarketingAuditRoute, recallRpc } from './recall.js';
import type { PublicRoute, RpcDefinition } from './rpc.js';
import { telephonyRpc } from './telephony.js';
import { webhooksRpc } from './webhooks.js';

/**
 * Every operation of the platform, by the component that serves it. What is derived from the
 * definitions (the gateway's scope for each REST route, the OpenAPI document, the documents' tables)
 * reads them here.
 */
export const operationsByService = {
  gateway: gatewayRpc,
  telephony: telephonyRpc,
  leads: leadsRpc,
  recall: recallRpc,
  webhooks: webhooksRpc,
  mcp: mcpRpc,
  console: consoleRpc,
  oauth: oauthRpc,
} as const satisfies Record<string, Record<string, RpcDefinition>>;

export const allOperations: readonly RpcDefinition[] = Object.values(operationsByService).flatMap((operations) =>
  Object.values(operations as Record<string, RpcDefinition>),
);

/** The documented REST routes that are not operations (public, without a key or an organization), by service. */
export const publicRoutesByService: Partial<Record<keyof typeof operationsByService, readonly PublicRoute[]>> = {
  recall: [publicMarketingAuditRoute],
};

export const publicRoutes: readonly PublicRoute[] = Object.values(publicRoutesByService).flat();

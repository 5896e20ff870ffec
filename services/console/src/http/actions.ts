import type { RpcDefinition } from '@voice/proto';
import type { FastifyInstance } from 'fastify';
import type { Access } from './session.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The platform operations this route runs for the person (over NATS, with their identity): what makes
     * it the console's counterpart of the MCP tools and REST routes that run the same operations.
     */
    operation?: RpcDefinition | readonly RpcDefinition[];
  }
}

/** A route of the console that runs a platform operation for a person. */
export interface ConsoleAction {
  operation: RpcDefinition;
  method: string;
  /** The route as registered, with its prefix and `:param` segments. */
  url: string;
  access: Access | undefined;
}

const actionsOf = new WeakMap<object, ConsoleAction[]>();

/**
 * Records, as they are registered on `pages`, the routes that declare the operation they run
 * (`config.operation`), for `consoleActions`: so the list of what a person can do is derived from the
 * routes themselves and cannot name a page that does not exist (test/mcp-parity.int.test.ts holds it
 * against the MCP catalogue).
 */
export function recordConsoleActions(pages: FastifyInstance, root: object): void {
  const actions: ConsoleAction[] = [];
  actionsOf.set(root, actions);
  pages.addHook('onRoute', (route) => {
    const operations = [route.config?.operation ?? []].flat();
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      for (const operation of operations) actions.push({ operation, method, url: route.url, access: route.config?.access });
    }
  });
}

/** The routes of a built console app that run a platform operation. */
export function consoleActions(app: object): readonly ConsoleAction[] {
  return actionsOf.get(app) ?? [];
}

import type { RpcDefinition } from '@voice/proto';
import type { FastifyInstance } from 'fastify';
import type { Access } from './session.js';

// A route declares the platform operation it runs for the person (over NATS, with their identity) as
// `config.operation`, the same field the services' REST routes declare theirs with (kit's service-auth):
// what makes it the console's counterpart of the MCP tools and REST routes that run that operation. A page
// that shows what several operations read names the others in `alsoRuns`.
declare module 'fastify' {
  interface FastifyContextConfig {
    alsoRuns?: readonly RpcDefinition[];
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
    const operations = [...(route.config?.operation ? [route.config.operation] : []), ...(route.config?.alsoRuns ?? [])];
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

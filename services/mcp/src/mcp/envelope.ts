import { CLIENT_CAPABILITIES_META_KEY, type ClientCapabilities, type ServerContext } from '@modelcontextprotocol/server';

/**
 * The capabilities a 2026-07-28 client declared on this request, in its `_meta` envelope (that era has no
 * `initialize`: every request says what its client can do). The one reader of the key, for the tools list's
 * Apps, the approvals' URL input and the tasks extension.
 */
export function clientCapabilities(ctx: ServerContext): ClientCapabilities | undefined {
  return (ctx.mcpReq.envelope as Record<string, ClientCapabilities | undefined> | undefined)?.[CLIENT_CAPABILITIES_META_KEY];
}

// Which tools an MCP client sees: toolsets and read-only mode, chosen by header (`X-MCP-Toolsets`,
// `X-MCP-Readonly`) or by URL (`/api/mcp/x/{toolsets}`, `/api/mcp/readonly`, `/api/mcp/x/{toolsets}/readonly`)
// for clients that cannot set headers. The mcp service, the gateway (routes, scopes, OAuth metadata) and the
// console (OAuth `resource`) all read the URLs with this one parser, so they agree on which exist.
import { isTestOrg } from './mode.js';

/**
 * The toolsets, in the order of MCP-TOOLS.md, then `testing` (test mode's helpers). Each tool names exactly
 * one in its definition.
 */
export const mcpToolsets = ['leads', 'calls', 'sequences', 'billing', 'workspace', 'knowledge', 'platform', 'testing'] as const;
export type McpToolset = (typeof mcpToolsets)[number];

export interface McpToolsetInfo {
  covers: string;
  /** The console's pages where a person does the same; none for a toolset only agents use. */
  console: readonly string[];
  /**
   * Offered to test credentials only (an organization's test twin, mode.ts): its tools run test helpers
   * (`testOnly` operations), and a live credential is never shown them nor may name the toolset.
   */
  testOnly?: true;
}

/** What each toolset covers, and the console's pages where a person does the same (the README's table). */
export const mcpToolsetInfo: Record<McpToolset, McpToolsetInfo> = {
  leads: { covers: 'leads, their notes; delete (approval)', console: ['/dashboard/leads'] },
  calls: { covers: 'calls, SMS, do-not-call list', console: ['/dashboard/calls', '/dashboard/messages', '/dashboard/do-not-call'] },
  sequences: { covers: 'sequences and enrollments', console: ['/dashboard/sequences'] },
  billing: { covers: 'invoices and projects', console: ['/dashboard/invoices', '/dashboard/projects'] },
  workspace: { covers: 'themes and workspaces', console: ['/dashboard/workspaces'] },
  knowledge: { covers: 'recall, brand score, knowledge documents', console: ['/dashboard/knowledge', '/dashboard/brand-score'] },
  platform: { covers: 'usage, audit log, approvals', console: ['/dashboard/usage', '/dashboard/audit-log', '/dashboard/approvals'] },
  testing: {
    covers: 'test mode only: advance a test call, simulate an inbound call or SMS, trigger a webhook event',
    console: [],
    testOnly: true,
  },
};

/** Whether a toolset is offered to test credentials only (`testing`). */
export function isTestOnlyToolset(toolset: McpToolset): boolean {
  return mcpToolsetInfo[toolset].testOnly === true;
}

/** The MCP endpoint's path; every selection URL starts with it. */
export const mcpPath = '/api/mcp';

/** What a request selected: the toolsets (all when none was named) and whether only read tools are served. */
export interface McpSelection {
  toolsets: readonly McpToolset[];
  readonly: boolean;
}

/** A refusal names what was wrong: the URL's toolsets, or one of the two headers. */
export type McpSelectionResult =
  | { ok: true; selection: McpSelection }
  | { ok: false; message: string; param: 'toolsets' | 'x-mcp-toolsets' | 'x-mcp-readonly' };

const isToolset = (name: string): name is McpToolset => (mcpToolsets as readonly string[]).includes(name);

/** A comma-separated list of toolset names, as the header or the URL segment carries it. */
function parseToolsets(list: string): { ok: true; toolsets: McpToolset[] } | { ok: false; message: string } {
  const names = list.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !isToolset(name));
  if (unknown.length > 0) {
    const shown = unknown.map((name) => JSON.stringify(name.slice(0, 40))).join(', ');
    return { ok: false, message: `Unknown toolset ${shown}. The toolsets are: ${mcpToolsets.join(', ')}.` };
  }
  return { ok: true, toolsets: [...new Set(names as McpToolset[])] };
}

// `/x/{toolsets}` then `/readonly`, each optional, after `/api/mcp`; a trailing slash is tolerated as on `/api/mcp/`.
const suffixPattern = /^(?:\/x\/([^/]*))?(\/readonly)?\/?$/;

/**
 * The selection a path names, or undefined when the path is not one of the MCP endpoint's (another path
 * under `/api/mcp/`); an unknown or empty toolset list is an error that lists the known ones.
 */
export function parseMcpPath(path: string): McpSelectionResult | undefined {
  if (path !== mcpPath && !path.startsWith(`${mcpPath}/`)) return undefined;
  const match = suffixPattern.exec(path.slice(mcpPath.length));
  if (!match) return undefined;
  const [, list, readonly] = match;
  if (list === undefined) return { ok: true, selection: { toolsets: mcpToolsets, readonly: readonly !== undefined } };
  let decoded: string;
  try {
    decoded = decodeURIComponent(list);
  } catch {
    const message = `The toolset list is not valid URL encoding. The toolsets are: ${mcpToolsets.join(', ')}.`;
    return { ok: false, message, param: 'toolsets' };
  }
  const parsed = parseToolsets(decoded);
  if (!parsed.ok) return { ...parsed, param: 'toolsets' };
  return { ok: true, selection: { toolsets: parsed.toolsets, readonly: readonly !== undefined } };
}

/** True for exactly the MCP endpoint's paths with a valid selection: what the gateway and console accept. */
export function isMcpPath(path: string): boolean {
  return parseMcpPath(path)?.ok === true;
}

/**
 * The selection of one request: its path's, narrowed by the headers. Toolsets named in both the URL and
 * the header are refused (which one meant?); read-only from either wins, being the safer of the two. Given
 * the credential's organization, a live one that names a test-only toolset (`testing`) is refused as if it
 * named an unknown one, with what to do instead; the default selection (no toolsets named) stays every
 * toolset, of which a live credential is offered the tools of its mode only (the catalogue's filter).
 */
export function mcpSelection(
  path: string,
  headers: { toolsets?: string; readonly?: string },
  credential?: { org_id: string },
): McpSelectionResult {
  const fromPath = parseMcpPath(path) ?? { ok: false, message: `${path.slice(0, 200)} is not an MCP endpoint.`, param: 'toolsets' };
  if (!fromPath.ok) return fromPath;
  let { toolsets, readonly } = fromPath.selection;
  if (headers.readonly !== undefined) {
    const value = headers.readonly.trim().toLowerCase();
    if (value !== 'true' && value !== 'false')
      return { ok: false, message: 'X-MCP-Readonly must be true or false.', param: 'x-mcp-readonly' };
    readonly ||= value === 'true';
  }
  if (headers.toolsets !== undefined) {
    if (path.startsWith(`${mcpPath}/x/`)) {
      return { ok: false, message: 'Name the toolsets in the URL or in X-MCP-Toolsets, not both.', param: 'x-mcp-toolsets' };
    }
    const parsed = parseToolsets(headers.toolsets);
    if (!parsed.ok) return { ...parsed, param: 'x-mcp-toolsets' };
    toolsets = parsed.toolsets;
  }
  const testOnly = toolsets.filter(isTestOnlyToolset);
  const named = headers.toolsets !== undefined || path.startsWith(`${mcpPath}/x/`);
  if (credential && !isTestOrg(credential.org_id) && named && testOnly.length > 0) {
    const message =
      `The ${testOnly.join(', ')} toolset is for test credentials only (a vk_test_ key, or a grant made in test mode); this ` +
      'credential is live. Call it with a test credential, or leave it out of the selection.';
    return { ok: false, message, param: headers.toolsets !== undefined ? 'x-mcp-toolsets' : 'toolsets' };
  }
  return { ok: true, selection: { toolsets, readonly } };
}

/**
 * The one spelling of an MCP URL's path: `/api/mcp`, then `/x/` and its toolsets as named (decoded, without
 * repeats), then `/readonly`; no trailing slash. Undefined for a path that is not a valid MCP URL. An OAuth
 * access token is accepted on exactly the path whose spelling is its resource's.
 */
export function canonicalMcpPath(path: string): string | undefined {
  const parsed = parseMcpPath(path);
  if (!parsed?.ok) return undefined;
  const named = path.slice(mcpPath.length).startsWith('/x/');
  return `${mcpPath}${named ? `/x/${parsed.selection.toolsets.join(',')}` : ''}${parsed.selection.readonly ? '/readonly' : ''}`;
}

/**
 * A selection narrowed to what a grant's resource selects: only the toolsets both name, read-only when
 * either is. A client may narrow what its token reaches (X-MCP-Toolsets, X-MCP-Readonly), never widen it.
 */
export function narrowSelection(selection: McpSelection, granted: McpSelection): McpSelection {
  return {
    toolsets: selection.toolsets.filter((toolset) => granted.toolsets.includes(toolset)),
    readonly: selection.readonly || granted.readonly,
  };
}

// MCP Apps (SEP-1865): the `ui://` resources a host renders beside a tool's result, for the tools whose
// results people would rather see than read. The registry says which App shows which tool, what
// resources/list and resources/read answer for it, and the `_meta` a tool's listing carries. Tools return
// exactly what they return without Apps: a View only draws the structuredContent it is given.
import { getUiCapability, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import { brandScoreApp } from './brand-score.js';
import { callApp } from './call.js';
import { callsApp } from './calls.js';
import { type AppDefinition, appDocument } from './document.js';
import { invoiceApp } from './invoice.js';
import { leadApp } from './lead.js';

export interface McpApp {
  uri: string;
  name: string;
  title: string;
  description: string;
  /** The tools whose results this App shows. */
  tools: readonly string[];
  /** The View's HTML document, built on first use and kept. */
  html(): string;
}

/** `_meta.ui` of an App resource, as ext-apps' McpUiResourceMeta has it. */
export interface AppResourceUiMeta {
  /** Empty domain lists: the View connects nowhere and loads nothing (everything is inlined). */
  csp: { connectDomains: string[]; resourceDomains: string[]; frameDomains: string[]; baseUriDomains: string[] };
  prefersBorder: boolean;
}

export interface AppResourceListing {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: typeof RESOURCE_MIME_TYPE;
  _meta: { ui: AppResourceUiMeta };
}

export interface AppResourceContents {
  contents: Array<{ uri: string; mimeType: typeof RESOURCE_MIME_TYPE; text: string; _meta: { ui: AppResourceUiMeta } }>;
}

/** A tool listing's `_meta`: the spec's `ui.resourceUri`, and the flat key older hosts read, as ext-apps' registerAppTool writes both. */
export interface ToolUiMeta {
  ui: { resourceUri: string };
  [RESOURCE_URI_META_KEY]: string;
}

export const appMimeType = RESOURCE_MIME_TYPE;

function app(definition: AppDefinition): McpApp {
  let html: string | undefined;
  return {
    uri: definition.uri,
    name: definition.name,
    title: definition.title,
    description: definition.description,
    tools: definition.tools,
    html: () => {
      html ??= appDocument(definition.title, definition.script);
      return html;
    },
  };
}

export const mcpApps: readonly McpApp[] = [callApp, callsApp, leadApp, brandScoreApp, invoiceApp].map(app);

const byTool = new Map(mcpApps.flatMap((each) => each.tools.map((tool) => [tool, each] as const)));
const byUri = new Map(mcpApps.map((each) => [each.uri, each]));

export function appForTool(toolName: string): McpApp | undefined {
  return byTool.get(toolName);
}

function uiMeta(): AppResourceUiMeta {
  return { csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }, prefersBorder: true };
}

/** The App's entry in resources/list. */
export function appResourceListing(each: McpApp): AppResourceListing {
  return {
    uri: each.uri,
    name: each.name,
    title: each.title,
    description: each.description,
    mimeType: RESOURCE_MIME_TYPE,
    _meta: { ui: uiMeta() },
  };
}

/** The resources/read result for an App's uri; undefined for any other uri. */
export function readAppResource(uri: string): AppResourceContents | undefined {
  const each = byUri.get(uri);
  if (!each) return undefined;
  return { contents: [{ uri: each.uri, mimeType: RESOURCE_MIME_TYPE, text: each.html(), _meta: { ui: uiMeta() } }] };
}

/** The `_meta` to add to the tool's tools/list entry; undefined for a tool no App shows. */
export function toolUiMeta(toolName: string): ToolUiMeta | undefined {
  const each = appForTool(toolName);
  if (!each) return undefined;
  return { ui: { resourceUri: each.uri }, [RESOURCE_URI_META_KEY]: each.uri };
}

/**
 * Whether a client's capabilities say it renders Apps (the `io.modelcontextprotocol/ui` extension with our
 * MIME type): only such a client is told which tools have one, so other clients' lists stay as they were.
 */
export function appsDeclared(capabilities: Parameters<typeof getUiCapability>[0] | Record<string, unknown> | undefined): boolean {
  const ui = getUiCapability(capabilities as Parameters<typeof getUiCapability>[0]);
  return ui?.mimeTypes?.includes(RESOURCE_MIME_TYPE) === true;
}

// MCP Apps as each era's client meets them: a client that declares the Apps extension
// (`io.modelcontextprotocol/ui`) sees which tools have a view (`_meta.ui.resourceUri`); one that does not
// gets the list it always had; both list and read the views' `ui://` resources. What the views show is
// apps.browser.int.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { gatewayHeaders } from '@voice/kit/testing';
import type { Identity } from '@voice/proto';
import { mcpApps } from '../src/apps/index.js';
import { listenOn, type McpHarness, sdkClient, startMcpHarness } from './support/harness.js';

const appsCapability = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } } };
const appTools = new Map(mcpApps.flatMap((app) => app.tools.map((tool) => [tool, app.uri] as const)));

interface AnyClient {
  listTools(): Promise<{ tools: Array<{ name: string; _meta?: Record<string, unknown> }> }>;
  listResources(): Promise<{ resources: Array<{ uri: string; mimeType?: string }> }>;
  readResource(params: { uri: string }): Promise<{ contents: Array<{ uri: string; mimeType?: string; text?: string }> }>;
  close(): Promise<void>;
}

describe('MCP Apps in both eras', () => {
  let h: McpHarness;
  let url: string;
  let identity: Identity;
  const clients: AnyClient[] = [];

  before(async () => {
    h = await startMcpHarness();
    url = await listenOn(h.app);
    identity = await h.identity();
  });
  after(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await h.close();
  });

  const eras = {
    '2025-11-25': async (capabilities: Record<string, unknown>) =>
      (await sdkClient(url, identity, { capabilities })) as unknown as AnyClient,
    '2026-07-28': async (capabilities: Record<string, unknown>) => {
      const signed: typeof fetch = (input, init = {}) => {
        const target = new URL(input instanceof Request ? input.url : String(input));
        const headers = new Headers(init.headers);
        for (const [name, value] of Object.entries(gatewayHeaders(identity, init.method ?? 'GET', target.pathname)))
          headers.set(name, value);
        return fetch(input, { ...init, headers });
      };
      const client = new ModernClient(
        { name: 'apps-test', version: '2.0.0' },
        { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      await client.connect(new ModernTransport(new URL(`${url}/api/mcp`), { fetch: signed }));
      return client as unknown as AnyClient;
    },
  };

  for (const [era, connect] of Object.entries(eras)) {
    test(`${era}: an Apps client sees each view's tools; other clients' lists are as before; the views are listed and read`, async () => {
      const withApps = await connect(appsCapability);
      const without = await connect({});
      clients.push(withApps, without);
      const uriOf = (tool: { _meta?: Record<string, unknown> }) => (tool._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
      const shown = (await withApps.listTools()).tools.filter((tool) => uriOf(tool) !== undefined);
      assert.deepEqual(shown.map((tool) => [tool.name, uriOf(tool)]).sort(), [...appTools.entries()].sort());
      assert.ok(shown.every((tool) => tool._meta?.['ui/resourceUri'] === uriOf(tool)));
      assert.deepEqual(
        (await without.listTools()).tools.filter((tool) => tool._meta?.ui !== undefined),
        [],
      );

      const resources = (await without.listResources()).resources;
      assert.deepEqual(resources.map((resource) => resource.uri).sort(), mcpApps.map((app) => app.uri).sort());
      assert.ok(resources.every((resource) => resource.mimeType === RESOURCE_MIME_TYPE));
      for (const app of mcpApps) {
        const read = await withApps.readResource({ uri: app.uri });
        assert.equal(read.contents[0]?.uri, app.uri);
        assert.match(String(read.contents[0]?.text), /^<!doctype html>/i);
      }
      await assert.rejects(withApps.readResource({ uri: 'ui://voice/nothing-here.html' }), /Unknown resource/);
    });
  }
});

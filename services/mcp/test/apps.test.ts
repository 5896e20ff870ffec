// The MCP Apps registry: every App is a ui:// resource of the MCP Apps type, shows tools that exist, reads
// back as one self-contained HTML document, and a tool's listing points at its App as ext-apps' server
// helpers would write it. (How each App renders a real result: apps.browser.int.test.ts.)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { McpUiResourceMetaSchema, McpUiToolMetaSchema } from '@modelcontextprotocol/ext-apps';
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import { appForTool, appResourceListing, mcpApps, readAppResource, toolUiMeta } from '../src/apps/index.js';
import { sdkScript } from '../src/apps/sdk.js';
import { allTools } from '../src/mcp/catalog.js';

const toolNames = new Set(allTools.map((tool) => tool.name));
const emptyCsp = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] };

describe('MCP Apps registry', () => {
  test('the five Apps: distinct ui:// uris and names, each for tools of the catalogue, every tool shown by one App', () => {
    assert.deepEqual(
      mcpApps.map((app) => [app.uri, app.tools]),
      [
        ['ui://voice/call.html', ['service_get_call']],
        ['ui://voice/calls.html', ['service_list_calls']],
        ['ui://voice/lead.html', ['service_get_lead']],
        ['ui://voice/brand-score.html', ['service_brand_score']],
        ['ui://voice/invoice.html', ['service_draft_invoice', 'service_get_invoice']],
      ],
    );
    assert.equal(new Set(mcpApps.map((app) => app.name)).size, mcpApps.length);
    for (const app of mcpApps) {
      assert.match(app.uri, /^ui:\/\/[a-z-]+\/[a-z-]+\.html$/);
      assert.ok(app.title && app.description, app.uri);
      for (const tool of app.tools) {
        assert.ok(toolNames.has(tool), `${tool} is in the catalogue`);
        assert.equal(appForTool(tool), app);
      }
    }
    assert.equal(new Set(mcpApps.flatMap((app) => app.tools)).size, mcpApps.flatMap((app) => app.tools).length);
    assert.equal(appForTool('service_delete_lead'), undefined);
  });

  test('resources/list entries: the MCP Apps mime type, empty CSP domain lists and a border asked for', () => {
    for (const app of mcpApps) {
      assert.deepEqual(appResourceListing(app), {
        uri: app.uri,
        name: app.name,
        title: app.title,
        description: app.description,
        mimeType: 'text/html;profile=mcp-app',
        _meta: { ui: { csp: emptyCsp, prefersBorder: true } },
      });
    }
    assert.equal(RESOURCE_MIME_TYPE, 'text/html;profile=mcp-app');
  });

  test('resources/read: one HTML content with the same _meta.ui; an unknown uri reads as undefined', () => {
    for (const app of mcpApps) {
      const read = readAppResource(app.uri);
      assert.ok(read, app.uri);
      assert.equal(read.contents.length, 1);
      const [content] = read.contents;
      assert.equal(content?.uri, app.uri);
      assert.equal(content?.mimeType, RESOURCE_MIME_TYPE);
      assert.deepEqual(content?._meta, { ui: { csp: emptyCsp, prefersBorder: true } });
      assert.equal(content?.text, app.html(), 'the same document');
      assert.equal(app.html(), app.html(), 'built once');
    }
    assert.equal(readAppResource('ui://voice/approve.html'), undefined);
    assert.equal(readAppResource('https://example.com/call.html'), undefined);
  });

  test('each document is self-contained: no src or href to anywhere, no inline handlers, its own CSP, one module script', () => {
    for (const app of mcpApps) {
      const html = app.html();
      assert.match(html, /^<!doctype html>\n<html lang="en">/);
      assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; [^"]*">/);
      assert.doesNotMatch(html, /\b(?:src|href|action|srcset|poster)\s*=\s*["']?(?:https?:)?\/\//i, app.uri);
      assert.doesNotMatch(html, /<(?:link|iframe|object|embed|base)\b/i, app.uri);
      assert.doesNotMatch(html, /<[a-z]+\s[^>]*\bon[a-z]+\s*=/i, `${app.uri}: no inline event handlers`);
      assert.equal(html.match(/<script\b/g)?.length, 1, `${app.uri}: one script`);
      assert.match(html, /<script type="module">/);
      assert.match(html, /<main id="view" aria-busy="true">/);
      assert.match(html, new RegExp(`<title>${app.title}</title>`));
      // The SDK inlined: its App class is there, under the global the views read it from.
      assert.match(html, /const McpAppsSdk=\(\(\)=>\{/);
      assert.match(html, /\nreturn\{[^}]*\bApp:[^}]*\};\}\)\(\);/);
      assert.doesNotMatch(html, /\bexport\s*\{/);
      assert.doesNotMatch(html, /\bapprove\b/i, `${app.uri}: Apps never approve`);
    }
  });

  test("a tool's listing _meta: ui.resourceUri and the flat key ext-apps' registerAppTool also writes", () => {
    assert.deepEqual(toolUiMeta('service_get_invoice'), {
      ui: { resourceUri: 'ui://voice/invoice.html' },
      'ui/resourceUri': 'ui://voice/invoice.html',
    });
    assert.equal(RESOURCE_URI_META_KEY, 'ui/resourceUri');
    assert.equal(toolUiMeta('service_list_leads'), undefined);
  });

  test("the _meta.ui of resources and tools satisfies ext-apps' own schemas (no key they do not know)", () => {
    for (const app of mcpApps) {
      const resourceUi = appResourceListing(app)._meta.ui;
      assert.deepEqual(McpUiResourceMetaSchema.strict().parse(resourceUi), resourceUi, app.uri);
      for (const tool of app.tools) {
        const toolUi = toolUiMeta(tool)?.ui;
        assert.deepEqual(McpUiToolMetaSchema.strict().parse(toolUi), toolUi, tool);
      }
    }
  });

  test('the SDK bundle becomes a constant: its one trailing export statement, names kept', () => {
    assert.equal(
      sdkScript('var a=1;class b{}\nexport{a as One,b as App};\n'),
      'const McpAppsSdk=(()=>{var a=1;class b{}\n\nreturn{One:a,App:b};})();',
    );
    assert.equal(sdkScript('var c=2;export{c};'), 'const McpAppsSdk=(()=>{var c=2;\nreturn{c:c};})();');
    assert.throws(() => sdkScript('var a=1;'), /does not end with one export statement/);
    assert.throws(() => sdkScript('export{a as B};var c=1;'), /does not end with one export statement/);
    assert.throws(() => sdkScript('var s="</script>";export{s};'), /closing script tag/);
  });
});

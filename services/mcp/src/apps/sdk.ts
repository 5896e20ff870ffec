// The ext-apps View SDK (its `app-with-deps` build: App, PostMessageTransport and the style helpers, with zod
// and the MCP protocol code inside) as script text a View inlines, so a View loads nothing from the network.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The global name the inlined SDK's exports are gathered under, for the views' own scripts. */
export const sdkGlobal = 'McpAppsSdk';

/**
 * The bundle is an ES module whose last statement is `export{a as App,…}`. Inlined, it would need an import,
 * which a `srcdoc` View cannot resolve; so it runs in a function of its own (its minified top-level names
 * stay out of the views' scope) that returns those names, as a constant the views' scripts read.
 */
export function sdkScript(bundle: string): string {
  const start = bundle.lastIndexOf('export{');
  const end = bundle.indexOf('}', start);
  if (
    start < 0 ||
    end < 0 ||
    bundle
      .slice(end + 1)
      .trim()
      .replace(/;$/, '') !== ''
  ) {
    throw new Error('the ext-apps bundle does not end with one export statement');
  }
  // Inside an inline <script>, this sequence would end the element early.
  if (/<\/script/i.test(bundle)) throw new Error('the ext-apps bundle holds a closing script tag');
  const entries = bundle
    .slice(start + 'export{'.length, end)
    .split(',')
    .map((item) => {
      const [local, exported = local] = item.trim().split(/\s+as\s+/);
      return `${exported}:${local}`;
    });
  return `const ${sdkGlobal}=(()=>{${bundle.slice(0, start)}\nreturn{${entries.join(',')}};})();`;
}

let cached: string | undefined;

/** The SDK's script, read from the installed package once (services run from dist with node_modules beside them). */
export function inlinedSdk(): string {
  if (cached === undefined) {
    const require = createRequire(import.meta.url);
    cached = sdkScript(readFileSync(require.resolve('@modelcontextprotocol/ext-apps/app-with-deps'), 'utf8'));
  }
  return cached;
}

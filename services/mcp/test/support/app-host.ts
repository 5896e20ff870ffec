// A small MCP Apps host for browser tests, built with the ext-apps SDK's host side (AppBridge and its
// PostMessageTransport), as a real host is: it puts a View's HTML in a sandboxed iframe (scripts only, an
// opaque origin) under the policy the resource's `_meta.ui.csp` asks for, answers the View's ui/initialize
// with a host context (theme, locale), then sends the tool's input and result over postMessage.
import { build } from 'esbuild';

/** What `showApp` in the host page takes: the resource as read, and the call the host made. */
export interface ShownApp {
  html: string;
  csp: { connectDomains: string[]; resourceDomains: string[]; frameDomains: string[]; baseUriDomains: string[] };
  theme: 'light' | 'dark';
  toolName: string;
  input: Record<string, unknown>;
  result: Record<string, unknown>;
}

// Browser code, bundled by esbuild with the SDK it imports (the repository's TypeScript has no DOM library).
const hostScript = `
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

/** The policy a host derives from the resource's declared domains (the spec's defaults when they are empty). */
function policy(csp) {
  const list = (domains, otherwise) => (domains.length > 0 ? domains.join(' ') : otherwise);
  const resources = list(csp.resourceDomains, '');
  return [
    "default-src 'none'",
    "script-src 'unsafe-inline' " + resources,
    "style-src 'unsafe-inline' " + resources,
    'img-src data: ' + resources,
    'font-src data: ' + resources,
    'media-src data: ' + resources,
    'connect-src ' + list(csp.connectDomains, "'none'"),
    'frame-src ' + list(csp.frameDomains, "'none'"),
    'base-uri ' + list(csp.baseUriDomains, "'none'"),
  ].join('; ');
}

globalThis.openedLinks = [];
let shownBridge;
let shownContext;
/** The host changes its context (a theme, style variables) while the View is shown; the bridge notifies the View. */
globalThis.changeHostContext = (change) => {
  shownContext = { ...shownContext, ...change };
  shownBridge.setHostContext(shownContext);
};
/** Shows one View, in place of the one shown before (a host page serves many Views in turn). */
globalThis.showApp = async (shown) => {
  globalThis.openedLinks = [];
  await shownBridge?.close();
  document.querySelector('main').replaceChildren();
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.title = 'App for ' + shown.toolName;
  frame.srcdoc = shown.html.replace('<head>', '<head><meta http-equiv="Content-Security-Policy" content="' + policy(shown.csp) + '">');
  document.querySelector('main').append(frame);
  shownContext = {
    theme: shown.theme,
    locale: 'en-US',
    timeZone: 'UTC',
    displayMode: 'inline',
    platform: 'web',
    toolInfo: { tool: { name: shown.toolName, inputSchema: { type: 'object' } } },
  };
  const bridge = new AppBridge(null, { name: 'apps-test-host', version: '1.0.0' }, { openLinks: {} }, { hostContext: shownContext });
  bridge.onsizechange = ({ height }) => {
    if (height) frame.style.height = height + 'px';
  };
  bridge.onopenlink = async ({ url }) => {
    globalThis.openedLinks.push(url);
    return {};
  };
  const initialized = new Promise((resolve) => {
    bridge.oninitialized = resolve;
  });
  shownBridge = bridge;
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  await initialized;
  await bridge.sendToolInput({ arguments: shown.input });
  await bridge.sendToolResult(shown.result);
};
`;

const hostStyles =
  'body { margin: 0; } main { padding: 8px; } iframe { display: block; width: 100%; height: 200px; border: 1px solid #c6c6d0; }';

/** The host page: the bundled host script inline, and a main landmark the Views' frames go in. */
export async function appHostPage(): Promise<string> {
  const bundled = await build({
    stdin: { contents: hostScript, resolveDir: import.meta.dirname, loader: 'js' },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'chrome120',
    minify: true,
    write: false,
    logLevel: 'silent',
  });
  // Inside an inline <script>, this sequence would end the element early.
  const script = (bundled.outputFiles[0]?.text ?? '').replaceAll('</script', '<\\/script');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>MCP Apps test host</title><style>${hostStyles}</style></head><body><main></main><script>${script}</script></body></html>`;
}

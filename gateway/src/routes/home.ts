import type { HttpApp } from '@voice/kit';
import { type GatewayEnv, publicBaseUrl } from '../env.js';

/**
 * `GET /`: a person who opens the gateway's address in a browser gets a small page pointing to the OpenAPI
 * document, the MCP configuration and the dashboard; an API client (anything not asking for HTML) gets the
 * usual 404 envelope, as for any other path that is not an API route.
 */
export function homeRoute(app: HttpApp, env: Pick<GatewayEnv, 'PUBLIC_BASE_URL' | 'PORT'>): void {
  const page = homePage(publicBaseUrl(env));
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    void reply.header('vary', 'accept');
    if (!acceptsHtml(request.headers.accept)) return reply.callNotFound();
    return reply
      .type('text/html; charset=utf-8')
      .header(
        'content-security-policy',
        "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      )
      .header('x-content-type-options', 'nosniff')
      .send(page);
  });
}

/** True when the Accept header names text/html (or any text type) with a non-zero quality: a browser. A bare wildcard is an API client's. */
export function acceptsHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((range) => {
    const [type = '', ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    if (type !== 'text/html' && type !== 'text/*') return false;
    const quality = parameters.find((parameter) => parameter.startsWith('q='));
    return quality === undefined || Number(quality.slice(2)) > 0;
  });
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

function homePage(baseUrl: string): string {
  const mcpUrl = `${baseUrl}/api/mcp`;
  const configuration = JSON.stringify(
    { mcpServers: { voice: { type: 'http', url: mcpUrl, headers: { Authorization: 'Bearer vk_live_…' } } } },
    null,
    2,
  );
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Voice platform API</title>
<style>
  body { font-family: system-ui, sans-serif; max-width: 44rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5; color: #1a1a1a; background: #fff; }
  a { color: #0645ad; }
  pre { background: #f4f4f4; padding: 1rem; overflow-x: auto; }
</style>
</head>
<body>
<header>
<h1>Voice platform API</h1>
<p>REST, MCP and webhooks for calls, SMS, leads and recall. API clients authenticate with <code>Authorization: Bearer &lt;API key&gt;</code>.</p>
</header>
<main>
<nav aria-label="Start here">
<ul>
<li><a href="/api/v1/openapi.json">OpenAPI document</a> (OpenAPI 3.1, every REST operation under <code>/api/v1/</code>)</li>
<li><a href="#mcp">MCP configuration</a> for AI agents</li>
<li><a href="/dashboard">Dashboard</a>: sign in, API keys, usage, audit log, webhooks, approvals</li>
</ul>
</nav>
<section id="mcp" aria-labelledby="mcp-heading">
<h2 id="mcp-heading">MCP configuration</h2>
<p>The MCP server is at <code>${escapeHtml(mcpUrl)}</code> (Streamable HTTP). A client that takes a header gets an API key:</p>
<pre><code>${escapeHtml(configuration)}</code></pre>
<p>VS Code names the top-level key <code>servers</code>. Clients that sign in instead (OAuth) get the bare URL and are sent to the dashboard to approve.</p>
</section>
</main>
</body>
</html>
`;
}

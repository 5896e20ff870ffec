import { request } from 'node:http';
import type { HttpApp } from '@voice/kit';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One HTTP request sent as written: the path is not normalised or re-encoded (fetch and inject would fix a
 * malformed percent sign), headers go as given, and the body is sent as is. An event stream answers with its
 * status and headers (its body is left unread).
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string | Buffer,
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) },
        agent: false,
      },
      (response) => {
        // A stream of server-sent events (the console's /dashboard/live) is open until the client leaves: its
        // answer is its status and headers, so the request ends there rather than at the server's own limit.
        if (String(response.headers['content-type']).startsWith('text/event-stream')) {
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: '' });
          response.destroy();
          return;
        }
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    // The server may answer (413) and close before the whole body is sent.
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error),
    );
    outgoing.end(body);
  });
}

export interface AppRoute {
  method: string;
  /** As registered, with `:name` parameters, e.g. /dashboard/members/:id/role. */
  path: string;
}

/**
 * Every route of an app, read from fastify's own route tree (`printRoutes`), so a page added later is
 * covered without being listed anywhere. HEAD routes (fastify's twins of GETs) are left out.
 */
export function routesOf(app: HttpApp): AppRoute[] {
  const routes: AppRoute[] = [];
  const segments: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*)[├└]── (.*?)(?: \(([^)]*)\))?$/.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? '').length / 4;
    segments.length = depth;
    segments.push(match[2] ?? '');
    const path = segments.join('');
    for (const method of (match[3] ?? '').split(', ').filter((name) => name && name !== 'HEAD')) routes.push({ method, path });
  }
  return routes;
}

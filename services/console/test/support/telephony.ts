// Stands in for the telephony service behind the gateway, so an API key can be used in a console test
// without starting the real service: every call list is empty, and the headers of each request are kept
// (what the gateway passes on and what it strips).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandInTelephony {
  url: string;
  /** The headers of every request received, oldest first. */
  seen: IncomingHttpHeaders[];
  close(): void;
}

export async function startStandInTelephony(): Promise<StandInTelephony> {
  const seen: IncomingHttpHeaders[] = [];
  const server: Server = createServer((request, response) => {
    seen.push(request.headers);
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[],"has_more":false,"next_cursor":null}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => server.close() };
}

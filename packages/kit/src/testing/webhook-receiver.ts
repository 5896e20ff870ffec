import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from './eventually.js';

export interface ReceivedRequest {
  /** The request target: path and query. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the receiver does with the n-th request (0-based): answer with a status, or hold it unanswered. */
export type Respond = (request: ReceivedRequest, index: number) => number | 'hold';

/**
 * A webhook receiver on 127.0.0.1: records every request and answers as `respond` says. It speaks plain
 * HTTP, so the service's production sending code is what the tests exercise.
 */
/** `port` 0 takes any free port; a fixed one lets a receiver that was closed come back at the same URL. */
export async function startReceiver(respond: Respond = () => 200, port = 0) {
  const requests: ReceivedRequest[] = [];
  const held = new Set<ServerResponse>();
  let behaviour = respond;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received = { url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      const index = requests.push(received) - 1;
      const answer = behaviour(received, index);
      if (answer === 'hold') {
        held.add(response);
        return;
      }
      response.writeHead(answer, { 'content-type': 'text/plain' }).end(`answered ${answer}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/hooks`,
    requests,
    setBehaviour(next: Respond) {
      behaviour = next;
    },
    /** Resolves once `predicate` holds for the requests so far; fails after `timeoutMs` rather than hanging the suite. */
    waitFor(predicate: (requests: ReceivedRequest[]) => boolean, timeoutMs = 20_000): Promise<ReceivedRequest[]> {
      return eventually(
        "the webhook receiver's requests to match",
        () => {
          if (!predicate(requests)) throw new Error(`not yet, ${requests.length} requests so far`);
          return requests;
        },
        { timeoutMs, intervalMs: 20 },
      );
    },
    async close() {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

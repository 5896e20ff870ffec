import { PassThrough } from 'node:stream';
import { ApiError, type Bus } from '@voice/kit';
import { eventSubjectPrefix } from '@voice/proto';
import type { FastifyInstance } from 'fastify';
import { dataOrgId } from '../domain/identity.js';
import type { ConsoleEnv } from '../env.js';
import { signedInOf } from '../http/session.js';
import { liveEventOf } from '../live/events.js';
import { type LiveClient, LiveHub, RecentIds } from '../live/hub.js';

/** How long the browser waits before reconnecting a stream that ended (the SSE `retry:` hint). */
const reconnectMs = 3_000;
/** A client this far behind (a stalled connection) is dropped; its browser reconnects and the page re-reads. */
const maxBufferedBytes = 256 * 1024;

/**
 * `GET /dashboard/live`: the platform's events of the session's organization, in its mode, as server-sent events, for
 * pages with live regions (static/live.js). One core NATS subscription on `evt.>` per process feeds every
 * stream (ARCHITECTURE.md, "The console's live stream"); the hub hands each event to its organization's
 * streams only.
 */
export function liveRoutes(app: FastifyInstance, deps: { env: ConsoleEnv; bus: Bus }): LiveHub {
  const { env } = deps;
  const hub = new LiveHub({ perProcess: env.LIVE_MAX_STREAMS, perSession: env.LIVE_MAX_STREAMS_PER_SESSION });
  const seen = new RecentIds(1_000);
  deps.bus.listen(`${eventSubjectPrefix}.>`, (message) => {
    const live = liveEventOf(message);
    // A core subscription hears every publish, also the outbox's repeat of an event JetStream drops as a duplicate.
    if (live && seen.add(live.event.id)) hub.deliver(live.orgId, live.event);
  });
  // Before the server stops accepting and waits for answers to finish: streams never finish by themselves.
  app.addHook('preClose', (done) => {
    hub.endAll();
    done();
  });

  app.get('/live', { config: { access: 'signed-in' } }, async (request, reply) => {
    const signedIn = signedInOf(request);
    const body = new PassThrough();
    const timers: NodeJS.Timeout[] = [];
    const end = () => {
      for (const timer of timers) clearTimeout(timer);
      hub.remove(client);
      body.end();
    };
    const client: LiveClient = {
      // In test mode the twin's events, and only those: a test page never hears live events, nor a live page test ones.
      orgId: dataOrgId(signedIn),
      role: signedIn.role,
      sessionHash: signedIn.sessionHash,
      send(event) {
        if (body.writableLength > maxBufferedBytes) return end();
        body.write(`id: ${event.id}\ndata: ${JSON.stringify(event)}\n\n`);
      },
      end,
    };
    const admission = hub.admit(client);
    if (admission !== 'admitted') {
      const why = admission === 'session-full' ? 'This session has too many live pages open.' : 'Too many live pages are open.';
      throw new ApiError('rate_limited', `${why} Close some tabs; this page is still current when reloaded.`, {
        headers: { 'retry-after': '30' },
      });
    }
    // Comments keep proxies and load balancers from closing a quiet connection.
    timers.push(setInterval(() => body.write(': heartbeat\n\n'), env.LIVE_HEARTBEAT_MS));
    // A stream lives a bounded time, then the browser reconnects, which checks the session again: a person
    // signed out or removed stops receiving within this time, on every replica.
    timers.push(setTimeout(end, env.LIVE_STREAM_MAX_MS));
    reply.raw.on('close', end);
    // No Last-Event-ID replay: a page reconnecting re-reads its live regions instead (static/live.js).
    body.write(`retry: ${reconnectMs}\n: connected\n\n`);
    return (
      reply
        .type('text/event-stream; charset=utf-8')
        .header('cache-control', 'no-store, no-transform')
        .header('x-accel-buffering', 'no')
        // The connection ends with the stream, rather than idling in a keep-alive pool that shutdown would wait for.
        .header('connection', 'close')
        .send(body)
    );
  });
  return hub;
}

// A reader of the console's live stream (`/dashboard/live`) over real HTTP, as EventSource reads it: the
// frames are parsed as they arrive, so a test can wait for an event, a heartbeat or the stream's end.
import { eventually } from '@voice/kit/testing';
import type { LiveEvent } from '../../src/live/events.js';

export interface LiveStream {
  response: Response;
  /** Every event so far, in order, as parsed from its `data:` line. */
  events: LiveEvent[];
  /** Comment lines (without the colon): the heartbeats. */
  comments: string[];
  /** The `retry:` hint, once seen. */
  retry: number | undefined;
  /** Everything received, as text: for checks that nothing of another organization appears anywhere. */
  raw(): string;
  /** Resolves when the server ended the stream. */
  ended: Promise<void>;
  waitFor(what: string, check: (events: LiveEvent[]) => boolean): Promise<void>;
  close(): void;
}

export async function openLiveStream(url: string, cookie: string): Promise<LiveStream> {
  const abort = new AbortController();
  const response = await fetch(`${url}/dashboard/live`, {
    headers: { cookie, accept: 'text/event-stream' },
    redirect: 'manual',
    signal: abort.signal,
  });
  if (response.status !== 200 || !response.body) throw new Error(`no stream: ${response.status}`);
  const stream: LiveStream = {
    response,
    events: [],
    comments: [],
    retry: undefined,
    raw: () => text,
    ended: Promise.resolve(),
    waitFor: (what, check) => eventually(what, () => check(stream.events)).then(() => undefined),
    close: () => abort.abort(),
  };
  let text = '';
  let pending = '';
  const decoder = new TextDecoder();
  const reader = response.body.getReader();
  stream.ended = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        const chunk = decoder.decode(value, { stream: true });
        text += chunk;
        pending += chunk;
        let boundary = pending.indexOf('\n\n');
        while (boundary >= 0) {
          for (const line of pending.slice(0, boundary).split('\n')) {
            if (line.startsWith(':')) stream.comments.push(line.slice(1).trim());
            else if (line.startsWith('retry: ')) stream.retry = Number(line.slice(7));
            else if (line.startsWith('data: ')) stream.events.push(JSON.parse(line.slice(6)) as LiveEvent);
          }
          pending = pending.slice(boundary + 2);
          boundary = pending.indexOf('\n\n');
        }
      }
    } catch {
      // Aborted by the test.
    }
  })();
  return stream;
}

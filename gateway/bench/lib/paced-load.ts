// Load at a fixed rate, evenly spaced. autocannon's `overallRate` is not that: each connection sends its
// share of a second as fast as it can, then waits for the next second, so "1,000 req/s" over 32 connections
// is a burst at full speed every second, and its latencies are those of a saturated server. Here each
// request leaves at its own moment (one every 1/rate s, a late timer sending the ones it owes at once) over
// a pool of keep-alive connections, and its latency is timed from when it left to its response's last byte.
import { Agent, request } from 'node:http';

export interface PacedResult {
  /** Responses received (any status). */
  completed: number;
  failed: number;
  /** Latencies in ms, from the request's departure to its response's end. */
  p50: number;
  p99: number;
  /** The rate reached, requests per second. */
  achieved: number;
}

export async function pacedLoad(options: {
  url: string;
  headers: Record<string, string>;
  ratePerSecond: number;
  seconds: number;
  connections: number;
}): Promise<PacedResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const target = new URL(options.url);
  const total = Math.round(options.ratePerSecond * options.seconds);
  const intervalMs = 1000 / options.ratePerSecond;
  const latencies: number[] = [];
  let failed = 0;
  let sent = 0;
  const inFlight = new Set<Promise<void>>();

  const send = () => {
    const started = performance.now();
    const done = new Promise<void>((resolve) => {
      const req = request(
        { agent, host: target.hostname, port: target.port, path: target.pathname + target.search, headers: options.headers },
        (response) => {
          response.on('data', () => {});
          response.on('end', () => {
            latencies.push(performance.now() - started);
            if (response.statusCode !== 200) failed++;
            resolve();
          });
        },
      );
      req.on('error', () => {
        failed++;
        resolve();
      });
      req.end();
    });
    inFlight.add(done);
    void done.then(() => inFlight.delete(done));
  };

  const startedAt = performance.now();
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor((performance.now() - startedAt) / intervalMs) + 1);
      while (sent < due) {
        send();
        sent++;
      }
      if (sent >= total) resolve();
      else setTimeout(tick, Math.max(0, startedAt + sent * intervalMs - performance.now()));
    };
    tick();
  });
  await Promise.all(inFlight);
  const elapsedS = (performance.now() - startedAt) / 1000;
  agent.destroy();
  latencies.sort((x, y) => x - y);
  const quantile = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? Number.NaN;
  return { completed: latencies.length, failed, p50: quantile(0.5), p99: quantile(0.99), achieved: latencies.length / elapsedS };
}

// Steady load for the chaos run: a fixed rate of requests, spread over the gateway replicas in turn, a mix
// of reads and writes. Every answer is kept (status, time, request id, whether the key was accepted and
// metered, the id a write created), so that each fault's figures come from what the clients saw.

export interface Sample {
  op: string;
  method: string;
  replica: number;
  startedAt: number;
  endedAt: number;
  /** HTTP status, `timeout` / `error` when no answer came, `rpc-error` for a 200 that carries a JSON-RPC or tool error. */
  status: number | 'timeout' | 'error' | 'rpc-error';
  requestId: string | undefined;
  /** Passed key, scope and quota checks (the rate-limit headers are set and it is no 429): owes an audit record. */
  authenticated: boolean;
  retryAfter: boolean;
}

interface Operation {
  name: string;
  weight: number;
  request(sequence: number): { method: string; path: string; body?: unknown; headers?: Record<string, string> };
  /** Whether a 2xx answer's body is a success (MCP answers 200 with an error inside). */
  succeeded?(body: string): boolean;
}

/** Every write carries the phase's tag, so the rows a phase committed can be found in the database. */
export function operations(tag: string, nextPhone: () => string): Operation[] {
  return [
    { name: 'list calls', weight: 4, request: () => ({ method: 'GET', path: '/api/v1/phone/calls?limit=20' }) },
    { name: 'list leads', weight: 2, request: () => ({ method: 'GET', path: '/api/v1/leads?limit=20' }) },
    {
      name: 'create lead',
      weight: 3,
      request: (sequence) => ({ method: 'POST', path: '/api/v1/leads', body: { name: `${tag}-${sequence}`, source: 'api' } }),
    },
    {
      name: 'add dnc',
      weight: 1,
      request: () => ({ method: 'POST', path: '/api/v1/phone/dnc', body: { phone: nextPhone(), reason: tag } }),
    },
  ];
}

/** MCP over the gateway (stateless JSON-RPC), a read tool and a writing one; the write carries the tag as the DNC reason. */
export function mcpOperations(tag: string, nextPhone: () => string): Operation[] {
  const call = (name: string, args: Record<string, unknown>) => ({
    method: 'POST',
    path: '/api/mcp',
    headers: { accept: 'application/json, text/event-stream' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
  });
  const succeeded = (body: string) => {
    try {
      const answer = JSON.parse(body) as { result?: { isError?: boolean } };
      return answer.result !== undefined && answer.result.isError !== true;
    } catch {
      return false;
    }
  };
  return [
    { name: 'mcp list leads', weight: 2, request: () => call('service_list_leads', { limit: 20 }), succeeded },
    { name: 'mcp add dnc', weight: 1, request: () => call('service_add_dnc', { phone: nextPhone(), reason: tag }), succeeded },
  ];
}

export class Load {
  readonly samples: Sample[] = [];
  /** Ticks at which the client already had `maxInFlight` requests open, so sent nothing. */
  skipped = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private sequence = 0;
  private readonly picks: Operation[];

  constructor(
    private readonly gateways: string[],
    private readonly key: string,
    ops: Operation[],
    private readonly options: { ratePerSecond: number; maxInFlight: number; timeoutMs: number },
  ) {
    this.picks = ops.flatMap((op) => Array.from({ length: op.weight }, () => op));
  }

  start(): void {
    const interval = 1000 / this.options.ratePerSecond;
    let due = performance.now();
    // Catches up after a late timer, so the rate holds while the event loop is busy.
    const tick = () => {
      const now = performance.now();
      while (due <= now) {
        due += interval;
        if (this.inFlight.size >= this.options.maxInFlight) this.skipped++;
        else this.send();
      }
      this.timer = setTimeout(tick, Math.max(0, due - performance.now()));
    };
    tick();
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    await Promise.all(this.inFlight);
  }

  private send(): void {
    const sequence = this.sequence++;
    const op = this.picks[sequence % this.picks.length] as Operation;
    const replica = sequence % this.gateways.length;
    const { method, path, body, headers } = op.request(sequence);
    const startedAt = Date.now();
    const record = (status: Sample['status'], headers?: Headers) =>
      this.samples.push({
        op: op.name,
        method,
        replica,
        startedAt,
        endedAt: Date.now(),
        status,
        requestId: headers?.get('request-id') ?? undefined,
        authenticated: (headers?.has('x-ratelimit-limit') ?? false) && status !== 429,
        retryAfter: headers?.has('retry-after') ?? false,
      });
    const work = fetch(`${this.gateways[replica]}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.key}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(this.options.timeoutMs),
    })
      .then(async (response) => {
        const text = await response.text();
        const failedInside = response.ok && op.succeeded !== undefined && !op.succeeded(text);
        record(failedInside ? 'rpc-error' : response.status, response.headers);
      })
      .catch((error: Error) => {
        record(error.name === 'TimeoutError' ? 'timeout' : 'error');
      })
      .finally(() => this.inFlight.delete(work));
    this.inFlight.add(work);
  }
}

const isSuccess = (sample: Sample) => typeof sample.status === 'number' && sample.status >= 200 && sample.status < 300;

/** What the clients saw during one fault. */
export function summarise(samples: Sample[], faultEnd: number) {
  const histogram = new Map<string, number>();
  for (const sample of samples) histogram.set(String(sample.status), (histogram.get(String(sample.status)) ?? 0) + 1);
  const slowest = samples.reduce<Sample | undefined>(
    (worst, sample) => (worst === undefined || sample.endedAt - sample.startedAt > worst.endedAt - worst.startedAt ? sample : worst),
    undefined,
  );
  // Recovery: the first success of a request sent once the fault was over, counted from the fault's end.
  const firstSuccess = samples
    .filter((sample) => sample.startedAt >= faultEnd && isSuccess(sample))
    .reduce<number | undefined>((first, sample) => (first === undefined || sample.endedAt < first ? sample.endedAt : first), undefined);
  // And the last failure of a request sent after the fault's end: failures that linger past the first success.
  const lastFailure = samples
    .filter((sample) => sample.startedAt >= faultEnd && !isSuccess(sample))
    .reduce<number | undefined>((last, sample) => (last === undefined || sample.endedAt > last ? sample.endedAt : last), undefined);
  const failures = new Map<string, number>();
  for (const sample of samples.filter((sample) => !isSuccess(sample))) {
    const key = `${sample.op} ${sample.status}${sample.status === 503 && !sample.retryAfter ? ' without Retry-After' : ''}`;
    failures.set(key, (failures.get(key) ?? 0) + 1);
  }
  return {
    sent: samples.length,
    /** Answers other than 2xx, by operation and status. */
    failures: [...failures].sort(([a], [b]) => a.localeCompare(b)),
    histogram: [...histogram].sort(([a], [b]) => a.localeCompare(b)),
    slowest,
    recoveryMs: firstSuccess === undefined ? undefined : Math.max(0, firstSuccess - faultEnd),
    lastFailureMs: lastFailure === undefined ? undefined : lastFailure - faultEnd,
    status500: samples.filter((sample) => sample.status === 500).length,
    status503: samples.filter((sample) => sample.status === 503).length,
    status503WithoutRetryAfter: samples.filter((sample) => sample.status === 503 && !sample.retryAfter).length,
  };
}

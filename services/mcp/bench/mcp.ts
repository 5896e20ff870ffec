// What the MCP server costs an agent and the platform, in one run:
// 1. the size of `tools/list` for a read-write key, in characters, per protocol era, per toolset and in total
//    (it goes into the agent's context window; budgets: 60,000 for 2025-11-25, 40,000 asked of 2026-07-28),
//    and the body of one tools/list through the gateway;
// 2. `tools/call` of a read tool (service_list_leads) through the gateway, in each era, against the REST call
//    it wraps (GET /api/v1/leads), requests per second with the same key, limit and data, in interleaved
//    rounds: the median of each and the median of the rounds' ratios, the median latency of each against
//    REST's, and the CPU this process spent per request in each. Nothing here asserts a timing.
//
//   npm run bench -- mcp        (BENCH_SECONDS=2 BENCH_ROUNDS=3 for a quick run)
import { bearer, startPlatform } from '@voice/gateway/testing';
import { testIdentity } from '@voice/kit/testing';
import { isTestOnlyToolset, mcpToolsets, testTwinOf } from '@voice/proto';
import autocannon from 'autocannon';
import { ToolCatalog } from '../src/mcp/catalog.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 8);
const warmupRequests = Number(process.env.BENCH_WARMUP_REQUESTS ?? 2_000);
const leads = 50;
const limit = 20;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

// 1. Sizes: what the server answers to tools/list, serialized as on the wire: everything, then what a
//    client of one toolset (its own list, with its own output schemas) gets.
const catalog = new ToolCatalog();
const readWrite = testIdentity({ scope: 'read-write' });
// A test key (its organization's test twin) is offered the testing toolset too.
const testKey = { ...readWrite, org_id: testTwinOf(readWrite.org_id) };
const eras = [
  { name: '2025-11-25', list: catalog.list.bind(catalog), budget: '60,000' },
  { name: '2026-07-28', list: catalog.listModern.bind(catalog), budget: '40,000' },
];
for (const era of eras) {
  const listed = era.list(readWrite);
  const total = JSON.stringify({ tools: listed }).length;
  console.log(
    `${era.name} tools/list for a read-write key: ${listed.length} tools, ${total.toLocaleString('en')} characters (target under ${era.budget})`,
  );
  const testListed = era.list(testKey);
  console.log(`  a test key: ${testListed.length} tools, ${JSON.stringify({ tools: testListed }).length.toLocaleString('en')} characters`);
  for (const toolset of mcpToolsets) {
    const tools = era.list(isTestOnlyToolset(toolset) ? testKey : readWrite, { toolsets: [toolset], readonly: false });
    const size = JSON.stringify({ tools }).length;
    const outputs = tools.reduce((sum, tool) => sum + JSON.stringify(tool.outputSchema).length, 0);
    console.log(
      `  ${toolset.padEnd(10)} ${String(tools.length).padStart(2)} tools ${size.toLocaleString('en').padStart(7)} characters (output schemas ${outputs.toLocaleString('en')})`,
    );
  }
  const readonly = era.list(readWrite, { toolsets: mcpToolsets, readonly: true });
  console.log(
    `  read-only  ${readonly.length} tools ${JSON.stringify({ tools: readonly }).length.toLocaleString('en').padStart(7)} characters`,
  );
}

// 2. tools/call against REST, through one gateway in front of real services.
const platform = await startPlatform({ services: ['leads', 'mcp'] });
try {
  const { key } = await platform.org({ plan: 'enterprise', quota: 100_000_000 });
  const json = { ...bearer(key), 'content-type': 'application/json' };
  for (let i = 0; i < leads; i++) {
    const created = await fetch(`${platform.url}/api/v1/leads`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ name: `Bench Lead ${i}`, phone: `+1415555${String(1000 + i)}`, status: i % 3 === 0 ? 'qualified' : 'new' }),
    });
    if (created.status !== 201) throw new Error(`creating a lead: ${created.status} ${await created.text()}`);
  }
  const mcpHeaders = { ...json, accept: 'application/json, text/event-stream' };
  const rpc = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
  const listBody = await (
    await fetch(`${platform.url}/api/mcp`, { method: 'POST', headers: mcpHeaders, body: rpc('tools/list', {}) })
  ).text();
  console.log(
    `  one tools/list response through the gateway: ${listBody.length.toLocaleString('en')} characters (JSON-RPC envelope included)`,
  );

  // A 2026-07-28 request says its revision, method and tool in headers and in the _meta envelope.
  const modernHeaders = {
    ...mcpHeaders,
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'service_list_leads',
  };
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const cases = {
    mcp: {
      url: `${platform.url}/api/mcp`,
      method: 'POST' as const,
      headers: mcpHeaders,
      body: rpc('tools/call', { name: 'service_list_leads', arguments: { limit } }),
    },
    mcp2026: {
      url: `${platform.url}/api/mcp`,
      method: 'POST' as const,
      headers: modernHeaders,
      body: rpc('tools/call', { name: 'service_list_leads', arguments: { limit }, _meta: envelope }),
    },
    rest: { url: `${platform.url}/api/v1/leads?limit=${limit}`, method: 'GET' as const, headers: bearer(key) },
  };
  // Both answer the same page before anything is timed.
  const viaRest = (await (await fetch(cases.rest.url, cases.rest)).json()) as { data: unknown[] };
  for (const era of ['mcp', 'mcp2026'] as const) {
    const viaMcp = (await (await fetch(cases[era].url, cases[era])).json()) as { result?: { structuredContent?: { data: unknown[] } } };
    if (viaMcp.result?.structuredContent?.data.length !== limit || viaRest.data.length !== limit) {
      throw new Error(`${era}: a page of ${limit} expected: ${JSON.stringify(viaMcp).slice(0, 300)}`);
    }
  }

  const run = async (name: keyof typeof cases, options: { amount?: number; duration?: number }) => {
    const result = await autocannon({ ...cases[name], connections, ...options });
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    return result;
  };
  const names = Object.keys(cases) as Array<keyof typeof cases>;
  for (const name of names) await run(name, { amount: warmupRequests });
  const samples: Record<keyof typeof cases, number[]> = { mcp: [], mcp2026: [], rest: [] };
  const p50: Record<keyof typeof cases, number[]> = { mcp: [], mcp2026: [], rest: [] };
  // The CPU this process spent per request (the gateway, the services and the load generator share it; the
  // backing servers are other processes): steadier than the rate on a shared machine, whose other tenants
  // change the rate between rounds more than they change the work a request needs.
  const cpuPerRequest: Record<keyof typeof cases, number[]> = { mcp: [], mcp2026: [], rest: [] };
  const ratios: Record<'mcp' | 'mcp2026', number[]> = { mcp: [], mcp2026: [] };
  for (let round = 0; round < rounds; round++) {
    // The order rotates so that no case always runs on a warmer or a busier machine.
    const order = names.map((_, i) => names[(i + round) % names.length] as keyof typeof cases);
    const perSecond: Partial<Record<keyof typeof cases, number>> = {};
    for (const name of order) {
      const cpuBefore = process.cpuUsage();
      const result = await run(name, { duration: seconds });
      const cpu = process.cpuUsage(cpuBefore);
      perSecond[name] = result.requests.average;
      samples[name].push(result.requests.average);
      p50[name].push(result.latency.p50);
      cpuPerRequest[name].push((cpu.user + cpu.system) / result.requests.total);
    }
    for (const era of ['mcp', 'mcp2026'] as const) ratios[era].push((perSecond[era] as number) / (perSecond.rest as number));
  }
  console.log(
    `tools/call service_list_leads (limit ${limit}) against GET /api/v1/leads, through the gateway: ${rounds} interleaved rounds of ${seconds} s, ${connections} connections, after ${warmupRequests} warm-up requests each`,
  );
  const cpu = (name: keyof typeof cases) => `${median(cpuPerRequest[name]).toFixed(0)} CPU µs/request`;
  console.log(
    `  REST            ${median(samples.rest).toFixed(0).padStart(6)} requests/s  p50 ${median(p50.rest).toFixed(1)} ms  ${cpu('rest')}`,
  );
  for (const [era, label] of [
    ['mcp', 'MCP 2025-11-25'],
    ['mcp2026', 'MCP 2026-07-28'],
  ] as const) {
    console.log(
      `  ${label.padEnd(15)} ${median(samples[era]).toFixed(0).padStart(6)} requests/s  p50 ${median(p50[era]).toFixed(1)} ms  ${cpu(era)}`,
    );
    const sorted = [...ratios[era]].sort((a, b) => a - b);
    console.log(
      `    ÷ REST, median of the rounds' ratios: ${median(ratios[era]).toFixed(2)} (target 0.8; rounds ${sorted.map((ratio) => ratio.toFixed(2)).join(', ')})`,
    );
    const latency = median(p50[era]) / median(p50.rest);
    const cpuRatio = median(cpuPerRequest.rest) / median(cpuPerRequest[era]);
    console.log(
      `    median latency ÷ REST's: ${latency.toFixed(2)} (target ≤ 1.5); REST's CPU per request ÷ this one's: ${cpuRatio.toFixed(2)}`,
    );
  }
} finally {
  await platform.close();
}

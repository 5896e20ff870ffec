// Brand-score wall time with the production adapters (official SDKs) against local fake OpenAI and
// Anthropic servers delayed 300 ms and 600 ms per request. Target: at most 650 ms, i.e. the slower
// provider, not the sum (900 ms), because both providers and their three prompts each run in parallel.
// Run: npm run bench -- recall   (or: node --conditions=source --import tsx services/recall/bench/brand-score.ts)
import { parseEnv } from '@voice/kit';
import { createTestContext, gatewayHeaders, knowingAnswers, startFakeAnthropic, startFakeOpenAi, testIdentity } from '@voice/kit/testing';
import { buildApp } from '../src/app.js';
import { connectDeps } from '../src/deps.js';
import { probeProvider, scoreBrandWithProviders } from '../src/domain/brand-score.js';
import { envSchema } from '../src/env.js';
import { createAnthropicProvider } from '../src/providers/anthropic.js';
import { createOpenAiProvider } from '../src/providers/openai.js';

const openaiDelayMs = 300;
const anthropicDelayMs = 600;
const runs = 5;
const input = { brand: 'Acme Voice', url: 'https://acmevoice.example' };

const openaiServer = await startFakeOpenAi(knowingAnswers(input.brand, openaiDelayMs));
const anthropicServer = await startFakeAnthropic(knowingAnswers(input.brand, anthropicDelayMs));
const openai = createOpenAiProvider({ apiKey: 'bench', baseURL: openaiServer.baseUrl, model: 'gpt-bench', maxRetries: 0 });
const anthropic = createAnthropicProvider({ apiKey: 'bench', baseURL: anthropicServer.baseUrl, model: 'claude-bench', maxRetries: 0 });
const deps = { providers: [openai, anthropic], providerTimeoutMs: 20_000 };

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function time(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

try {
  // One warm-up run so connection setup and JIT are not in the figures.
  await scoreBrandWithProviders(deps, input);
  const wall: number[] = [];
  const sum: number[] = [];
  for (let run = 0; run < runs; run++) {
    wall.push(await time(() => scoreBrandWithProviders(deps, input)));
    // For comparison: the same probes one provider after the other.
    sum.push((await time(() => probeProvider(openai, input, 20_000))) + (await time(() => probeProvider(anthropic, input, 20_000))));
  }
  const wallMedian = Math.round(median(wall));
  const sumMedian = Math.round(median(sum));
  console.log(`brand score, providers delayed ${openaiDelayMs} ms and ${anthropicDelayMs} ms, ${runs} runs (median):`);
  console.log(`  wall time (parallel)        ${wallMedian} ms   target <= 650 ms  ${wallMedian <= 650 ? 'OK' : 'OVER'}`);
  console.log(`  providers one after another ${sumMedian} ms   (for comparison)`);
  console.log(`  all wall times: ${wall.map((value) => Math.round(value)).join(', ')} ms`);
  await throughTheService();
} finally {
  await openaiServer.close();
  await anthropicServer.close();
}

/** The same through the whole service (HTTP route, rubric, event on JetStream), when Postgres/Redis/NATS answer. */
async function throughTheService(): Promise<void> {
  let ctx: Awaited<ReturnType<typeof createTestContext>>;
  try {
    ctx = await createTestContext();
  } catch (error) {
    console.log(`  through POST /api/v1/llm-recall: skipped (${(error as Error).message.split('\n')[0]})`);
    return;
  }
  const env = parseEnv(envSchema, {
    ...ctx.env,
    OPENAI_API_KEY: 'bench',
    OPENAI_BASE_URL: openaiServer.baseUrl,
    ANTHROPIC_API_KEY: 'bench',
    ANTHROPIC_BASE_URL: anthropicServer.baseUrl,
    PROVIDER_MAX_RETRIES: '0',
    BRAND_PAGE_CHECK: 'false',
  });
  const deps = await connectDeps(env);
  const app = await buildApp(deps);
  try {
    const identity = testIdentity({ scope: 'read' });
    const url = '/api/v1/llm-recall';
    const post = async () => {
      const response = await app.inject({ method: 'POST', url, headers: gatewayHeaders(identity, 'POST', url), payload: input });
      if (response.statusCode !== 200) throw new Error(`brand score answered ${response.statusCode}: ${response.body}`);
    };
    await post();
    const times: number[] = [];
    for (let run = 0; run < runs; run++) times.push(await time(post));
    const routeMedian = Math.round(median(times));
    console.log(`  through POST /api/v1/llm-recall ${routeMedian} ms   target <= 650 ms  ${routeMedian <= 650 ? 'OK' : 'OVER'}`);
  } finally {
    await app.close();
    await deps.close();
    await ctx.cleanup();
  }
}

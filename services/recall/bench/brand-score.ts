// Brand-score wall time with the production adapters (official SDKs) against local fake OpenAI and
// Anthropic servers delayed 300 ms and 600 ms per request. Target: at most 650 ms, i.e. the slower
// provider, not the sum (900 ms), because both providers and their three prompts each run in parallel.
// Run: npm run bench -- recall   (or: node --conditions=source --import tsx services/recall/bench/brand-score.ts)
import { probeProvider, scoreBrandWithProviders } from '../src/domain/brand-score.js';
import { createAnthropicProvider } from '../src/providers/anthropic.js';
import { createOpenAiProvider } from '../src/providers/openai.js';
import { knowingAnswers, startFakeAnthropic, startFakeOpenAi } from '../test/fake-providers.js';

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
} finally {
  await openaiServer.close();
  await anthropicServer.close();
}

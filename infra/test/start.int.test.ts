import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from '@voice/kit/testing';

const root = new URL('../../', import.meta.url).pathname;

/**
 * `npm start` runs `tsx --conditions=source scripts/start.ts`; the test runs the same command directly so
 * that a signal reaches the script itself, as Ctrl-C or Kubernetes' SIGTERM does, not npm's wrapper.
 */
function runStart(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'scripts/start.ts'], {
    cwd: root,
    env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => ({ stdout, stderr }) };
}

describe('npm start', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(async () => {
    await ctx.cleanup();
  });

  test('with Postgres unreachable it says which, where and how to start it, and exits 1', async () => {
    const run = runStart({ DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/voice' });
    const code = await run.exited;
    assert.equal(code, 1);
    const reason = run
      .output()
      .stderr.trim()
      .split('\n')
      .filter((line) => line.startsWith('postgres'));
    assert.equal(reason.length, 1, run.output().stderr);
    assert.match(reason[0] ?? '', /^postgres is not reachable at 127\.0\.0\.1:1 \(ECONNREFUSED\); start it with/);
  });

  test('brings up all six processes, each answering /readyz, prints the gateway URL, and stops cleanly on SIGTERM', async () => {
    const base = 20_000 + Math.floor(Math.random() * 20_000);
    const ports = {
      PORT: base,
      TELEPHONY_PORT: base + 1,
      LEADS_PORT: base + 2,
      RECALL_PORT: base + 3,
      MCP_PORT: base + 4,
      WEBHOOKS_PORT: base + 5,
    };
    const run = runStart({
      ...ctx.env,
      ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
    });
    const deadline = Date.now() + 90_000;
    while (!run.output().stdout.includes('Gateway ready at') && Date.now() < deadline && run.child.exitCode === null) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.match(run.output().stdout, new RegExp(`Gateway ready at http://localhost:${base}`), run.output().stderr);
    for (const port of Object.values(ports)) {
      const response = await fetch(`http://127.0.0.1:${port}/readyz`);
      assert.equal(response.status, 200, `port ${port}`);
    }
    run.child.kill('SIGTERM');
    assert.equal(await run.exited, 0);
  });
});

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { createTestContext, freePort, type TestContext } from '@voice/kit/testing';
import { twilioSignature } from '../../services/telephony/src/carrier/twilio-signature.js';

const root = new URL('../../', import.meta.url).pathname;

interface Run {
  pid: number;
  exited: Promise<number | null>;
  output(): { stdout: string; stderr: string };
}

/**
 * `npm start` itself (npm, then `exec node … scripts/start.ts`) in a process group of its own, as a terminal
 * runs a foreground command, so that a signal to the group is what Ctrl-C sends; or the script alone (a
 * signal to its pid, as an orchestrator's SIGTERM reaches a container's first process).
 */
function runStart(env: Record<string, string>, options: { npm?: boolean } = {}): Run {
  const [command, args] = options.npm
    ? ['npm', ['start']]
    : [process.execPath, ['--conditions=source', '--import', 'tsx', 'scripts/start.ts']];
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.npm ?? false,
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
  return { pid: child.pid as number, exited, output: () => ({ stdout, stderr }) };
}

/** Every port `npm start` takes, from the test's own range: the gateway's, its metrics', and each service's. */
async function stackPorts() {
  const names = ['PORT', 'METRICS_PORT', 'TELEPHONY_PORT', 'LEADS_PORT', 'RECALL_PORT', 'MCP_PORT', 'WEBHOOKS_PORT', 'CONSOLE_PORT'];
  const ports: Record<string, number> = {};
  for (const name of names) {
    let port = await freePort();
    while (Object.values(ports).includes(port)) port = await freePort();
    ports[name] = port;
  }
  return ports;
}

async function untilReady(run: Run): Promise<void> {
  const deadline = Date.now() + 120_000;
  let exited = false;
  void run.exited.then(() => {
    exited = true;
  });
  while (!run.output().stdout.includes('Gateway ready at') && Date.now() < deadline && !exited) {
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  assert.match(run.output().stdout, /Gateway ready at/, run.output().stderr);
}

/** The JSON log lines of the processes, by their `name`. */
function logLines(stdout: string): Array<{ name?: string; msg?: string; signal?: string }> {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { name?: string; msg?: string; signal?: string });
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

  test('brings up all seven processes on the ports given, the public address following PORT, metrics off the public port; Ctrl-C stops each gracefully', async () => {
    const ports = await stackPorts();
    const twilioToken = 'start-test-twilio-auth-token-0000';
    const run = runStart(
      {
        ...ctx.env,
        LOG_LEVEL: 'info',
        TWILIO_AUTH_TOKEN: twilioToken,
        ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
      },
      { npm: true },
    );
    try {
      await untilReady(run);
      assert.match(run.output().stdout, new RegExp(`Gateway ready at http://localhost:${ports.PORT}`));
      for (const [name, port] of Object.entries(ports)) {
        if (name === 'METRICS_PORT') continue;
        assert.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200, `${name} ${port}`);
      }

      // PUBLIC_BASE_URL unset: every process takes the gateway's own address, so Twilio's signature over the
      // callback URL (built from it, on a port other than 8080) verifies.
      const path = '/api/hooks/twilio/calls/status';
      const form = { CallSid: `CA${'0'.repeat(32)}`, CallStatus: 'completed' };
      const signed = (url: string) =>
        fetch(`http://127.0.0.1:${ports.PORT}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignature(twilioToken, url, form) },
          body: new URLSearchParams(form).toString(),
        });
      assert.equal((await signed(`http://localhost:${ports.PORT}${path}`)).status, 204);
      assert.equal((await signed(`http://localhost:8080${path}`)).status, 403, 'not the default port');

      // The gateway's metrics: on METRICS_PORT, not on its public port.
      assert.equal((await fetch(`http://127.0.0.1:${ports.PORT}/metrics`)).status, 404);
      const metrics = await fetch(`http://127.0.0.1:${ports.METRICS_PORT}/metrics`);
      assert.equal(metrics.status, 200);
      assert.match(await metrics.text(), /^# HELP gateway_audit_/m);
    } finally {
      // Ctrl-C: the terminal sends SIGINT to the foreground process group (npm, tsx, the script).
      process.kill(-run.pid, 'SIGINT');
    }
    const code = await run.exited;
    const { stdout, stderr } = run.output();
    assert.equal(code, 0, stderr);
    assert.doesNotMatch(`${stdout}\n${stderr}`, /second (SIGINT|SIGTERM)/);
    // Each of the seven processes got one signal (the script's SIGTERM) and shut down gracefully, once.
    const shutdowns = logLines(stdout).filter((line) => line.msg === 'shutting down');
    assert.deepEqual(
      shutdowns.map((line) => `${line.name} ${line.signal}`).sort(),
      ['console', 'gateway', 'leads', 'mcp', 'recall', 'telephony', 'webhooks'].map((name) => `${name} SIGTERM`),
    );
    assert.match(stderr, /\[start\] stopping/);
  });

  test('SIGTERM to the script alone (as an orchestrator sends it) stops every process and exits 0', async () => {
    const ports = await stackPorts();
    const run = runStart({
      ...ctx.env,
      LOG_LEVEL: 'info',
      ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
    });
    try {
      await untilReady(run);
    } finally {
      process.kill(run.pid, 'SIGTERM');
    }
    assert.equal(await run.exited, 0, run.output().stderr);
    assert.equal(logLines(run.output().stdout).filter((line) => line.msg === 'shutting down').length, 7);
    for (const [name, port] of Object.entries(ports)) {
      const refused = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        () => false,
        () => true,
      );
      assert.ok(refused, `${name} ${port} no longer listens`);
    }
  });
});

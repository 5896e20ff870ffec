// `npm start`: check that Postgres, Redis and NATS answer, generate the Prisma clients if missing,
// migrate, start the gateway and every service, wait until each is ready, print the gateway URL, and stop
// everything cleanly on Ctrl-C or SIGTERM. Ports and URLs follow the contract in ARCHITECTURE.md.
//
// Each child runs in a process group of its own, so the terminal's Ctrl-C (SIGINT to the foreground group)
// reaches this script only, and each child gets exactly one signal, this script's SIGTERM: a second signal
// would make close-with-grace give up the graceful shutdown ("second SIGTERM, exiting").
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertBackingServices, DependencyError, defaultGatewayPort, publicAddress } from '@voice/kit';
import { generateClients, migrateDatabase } from '@voice/migrator';

const root = fileURLToPath(new URL('..', import.meta.url));
const env = {
  DATABASE_URL: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/voice',
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
};

const deployables = [
  { name: 'telephony', dir: 'services/telephony', port: Number(process.env.TELEPHONY_PORT ?? 8081) },
  { name: 'leads', dir: 'services/leads', port: Number(process.env.LEADS_PORT ?? 8082) },
  { name: 'recall', dir: 'services/recall', port: Number(process.env.RECALL_PORT ?? 8083) },
  { name: 'mcp', dir: 'services/mcp', port: Number(process.env.MCP_PORT ?? 8084) },
  { name: 'webhooks', dir: 'services/webhooks', port: Number(process.env.WEBHOOKS_PORT ?? 8085) },
  { name: 'console', dir: 'services/console', port: Number(process.env.CONSOLE_PORT ?? 8086) },
  { name: 'gateway', dir: 'gateway', port: Number(process.env.PORT || defaultGatewayPort) },
].filter((deployable) => existsSync(join(root, deployable.dir, 'src/main.ts')));

const say = (line: string) => process.stderr.write(`[start] ${line}\n`);

try {
  await assertBackingServices({ databaseUrl: env.DATABASE_URL, redisUrl: env.REDIS_URL, natsUrl: env.NATS_URL }, 3_000);
} catch (error) {
  if (!(error instanceof DependencyError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}

const missingClients = deployables.filter(
  (deployable) =>
    existsSync(join(root, deployable.dir, 'prisma/schema.prisma')) && !existsSync(join(root, deployable.dir, 'src/generated/prisma')),
);
if (missingClients.length > 0) {
  say(`generating Prisma clients for ${missingClients.map((deployable) => deployable.name).join(', ')}`);
  await generateClients({ rootDir: root, services: missingClients.map((deployable) => deployable.name), quiet: true });
}
say('migrating');
await migrateDatabase({ databaseUrl: env.DATABASE_URL, rootDir: root });

const gatewayPort = deployables.find((deployable) => deployable.name === 'gateway')?.port ?? defaultGatewayPort;
const upstreamEnv = Object.fromEntries(
  deployables
    .filter((deployable) => deployable.name !== 'gateway')
    .map((deployable) => [`${deployable.name.toUpperCase()}_URL`, `http://127.0.0.1:${deployable.port}`]),
);
// The platform's public address is the gateway's: the console's links, the approvals' pages and the URLs
// Twilio calls back (and signs) are built from it, so every process gets the one the gateway listens on.
const publicEnv = { PUBLIC_BASE_URL: publicAddress(process.env.PUBLIC_BASE_URL, gatewayPort) };
const children = new Map<string, ChildProcess>();
let stopping = false;

function stopAll(exitCode: number): void {
  if (stopping) return;
  stopping = true;
  say('stopping');
  for (const child of children.values()) child.kill('SIGTERM');
  const force = setTimeout(() => {
    for (const child of children.values()) child.kill('SIGKILL');
  }, 15_000);
  force.unref();
  const waitAll = [...children.values()].map(
    (child) => new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve))),
  );
  void Promise.all(waitAll).then(() => process.exit(exitCode));
}

for (const deployable of deployables) {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', join(deployable.dir, 'src/main.ts')], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, ...env, ...upstreamEnv, ...publicEnv, PORT: String(deployable.port) },
    // A process group of its own: the terminal's SIGINT is not sent to it, only this script's SIGTERM.
    detached: true,
  });
  children.set(deployable.name, child);
  child.once('exit', (code, signal) => {
    if (stopping) return;
    say(`${deployable.name} exited (${signal ?? `code ${code}`}); stopping the others`);
    stopAll(1);
  });
}

// `on`, not `once`: a second Ctrl-C (or tsx relaying the terminal's SIGINT) must not end this script before
// the children have stopped, which would leave them running in their own groups.
process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));
// Should this script end some other way (an error of its own), the children end with it.
process.on('exit', () => {
  for (const child of children.values()) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

async function ready(port: number, deadline: number): Promise<boolean> {
  while (Date.now() < deadline && !stopping) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1_000) });
      if (response.ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

const deadline = Date.now() + 60_000;
const readiness = await Promise.all(
  deployables.map(async (deployable) => [deployable.name, await ready(deployable.port, deadline)] as const),
);
const notReady = readiness.filter(([, isReady]) => !isReady).map(([name]) => name);
if (notReady.length > 0) {
  say(`not ready after 60 s: ${notReady.join(', ')}`);
  stopAll(1);
} else {
  say(`all ${deployables.length} processes ready`);
  process.stdout.write(
    `Gateway ready at http://localhost:${gatewayPort}  (OpenAPI: http://localhost:${gatewayPort}/api/v1/openapi.json, MCP: http://localhost:${gatewayPort}/api/mcp)\n`,
  );
}

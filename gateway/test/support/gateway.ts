import assert from 'node:assert/strict';
import { type AddressInfo, createServer, type Server, Socket } from 'node:net';
import { ApiError, type HttpApp, newId, parseEnv } from '@voice/kit';
import { type TestContext, testIdentity } from '@voice/kit/testing';
import { type Identity, oauthRpc } from '@voice/proto';
import { type AdminCommand, runAdminCommand } from '../../src/admin/commands.js';
import { buildApp } from '../../src/app.js';
import { connectDeps, type GatewayDeps } from '../../src/deps.js';
import { envSchema, publicBaseUrl } from '../../src/env.js';
import { recordKeyEnd } from '../../src/quota/quota.js';

/** A gateway under test, with the operator commands wired to its database and NATS namespace. */
export interface TestGateway {
  app: HttpApp;
  deps: GatewayDeps;
  admin(command: AdminCommand): Promise<unknown>;
  close(): Promise<void>;
}

export async function startGateway(
  ctx: TestContext,
  env: Record<string, string> = {},
  options: { auditWorker?: boolean; now?: () => Date } = {},
): Promise<TestGateway> {
  // Without the audit writer: the outbox relay alone, as on a serving replica (WORKERS=outbox).
  const workers = options.auditWorker === false ? { WORKERS: 'outbox' } : {};
  // A quota call's timeout is a bound for a hung Redis. In production it is short (450 ms), so a slow Redis
  // is a prompt 503; a test on a loaded machine would get that 503 from a slow event loop instead, so tests
  // bound hangs only, unless they set it (the outage tests do).
  const hangBound = { QUOTA_TIMEOUT_MS: '10000' };
  const deps = await connectDeps(
    parseEnv(envSchema, { ...ctx.env, ...hangBound, ...workers, ...env }),
    options.now ? { now: options.now } : {},
  );
  const app = await buildApp(deps);
  await app.ready();
  return {
    app,
    deps,
    admin: adminOf(deps),
    async close() {
      await app.close();
      await deps.close();
    },
  };
}

/** The operator commands, wired to a gateway's database, NATS namespace and Redis (revocation markers). */
export function adminOf(deps: GatewayDeps): (command: AdminCommand) => Promise<unknown> {
  return (command) =>
    runAdminCommand(deps.prisma, deps.bus, command, (end) => recordKeyEnd(deps.redis, { prefix: deps.env.REDIS_PREFIX, ...end }));
}

/** Creates an organization and a key; returns the raw key. */
export async function createOrgWithKey(
  gateway: TestGateway,
  options: { plan?: 'lite' | 'starter' | 'pro' | 'enterprise'; scope?: 'read' | 'read-write'; quota?: number } = {},
): Promise<{ orgId: string; keyId: string; key: string }> {
  const org = (await gateway.admin({ kind: 'org.create', name: 'Acme', plan: options.plan ?? 'pro' })) as { id: string };
  const created = (await gateway.admin({
    kind: 'key.create',
    orgId: org.id,
    scope: options.scope ?? 'read-write',
    monthlyQuota: options.quota ?? 1_000,
  })) as { id: string; key: string };
  return { orgId: org.id, keyId: created.id, key: created.key };
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/**
 * A TCP relay in front of a real server, which a test can cut and restore: an outage of Redis or NATS as
 * one process sees it, without stopping the server other tests share.
 */
export class Relay {
  private server: Server;
  private sockets = new Set<Socket>();
  private cut = false;
  private silent = false;
  private pairs = new Set<[Socket, Socket]>();
  port = 0;

  private constructor(private readonly target: { host: string; port: number }) {
    this.server = createServer((client) => {
      if (this.cut) {
        client.destroy();
        return;
      }
      const upstream = new Socket();
      upstream.connect(this.target.port, this.target.host);
      const pair: [Socket, Socket] = [client, upstream];
      this.pairs.add(pair);
      if (!this.silent) Relay.forward(pair);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('error', () => {});
        socket.on('close', () => {
          this.sockets.delete(socket);
          this.pairs.delete(pair);
          client.destroy();
          upstream.destroy();
        });
      }
    });
  }

  static async start(targetUrl: string): Promise<Relay> {
    const url = new URL(targetUrl);
    const relay = new Relay({ host: url.hostname, port: Number(url.port) });
    await new Promise<void>((resolve) => relay.server.listen(0, '127.0.0.1', resolve));
    relay.port = (relay.server.address() as AddressInfo).port;
    return relay;
  }

  url(protocol: string): string {
    return `${protocol}//127.0.0.1:${this.port}`;
  }

  private static forward([client, upstream]: [Socket, Socket]): void {
    client.pipe(upstream).pipe(client);
  }

  /**
   * Keeps every connection open but passes nothing either way, as a server that hangs: nothing is
   * refused, nothing is answered.
   */
  hang(): void {
    this.silent = true;
    for (const [client, upstream] of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }

  /** Drops every connection and refuses new ones. */
  stop(): void {
    this.cut = true;
    for (const socket of this.sockets) socket.destroy();
  }

  restore(): void {
    this.cut = false;
    if (this.silent) {
      this.silent = false;
      for (const pair of this.pairs) {
        Relay.forward(pair);
        for (const socket of pair) socket.resume();
      }
    }
  }

  async close(): Promise<void> {
    this.stop();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** The identity the console sends for a signed-in person (owners and admins `read-write`, members `read`). */
export function personIdentity(orgId: string, options: { userId?: string; scope?: 'read' | 'read-write' } = {}): Identity {
  const userId = options.userId ?? newId('user');
  return testIdentity({ org_id: orgId, key_id: userId, user_id: userId, scope: options.scope ?? 'read-write' });
}

/**
 * A grant approved by a person of the organization, and one access token of it (as the console's token
 * endpoint gets one), for an MCP URL (`resourcePath`, `/api/mcp` unless told) at the gateway's public address.
 */
export async function createGrantWithToken(
  gateway: TestGateway,
  orgId: string,
  options: { scope?: 'read' | 'read-write'; quota?: number; clientName?: string; resourcePath?: string } = {},
): Promise<{ grantId: string; token: string; person: Identity; resource: string }> {
  const person = personIdentity(orgId);
  const resource = `${publicBaseUrl(gateway.deps.env)}${options.resourcePath ?? '/api/mcp'}`;
  const grant = await gateway.deps.bus.call(oauthRpc.createGrant, person, {
    client_id: 'https://client.example/metadata.json',
    client_name: options.clientName ?? 'Example client',
    scope: options.scope ?? 'read',
    resource,
    monthly_quota: options.quota ?? 1_000,
  });
  const issued = await gateway.deps.bus.call(oauthRpc.issueAccessToken, person, { grant_id: grant.id });
  return { grantId: grant.id, token: issued.access_token, person, resource };
}

/** The ApiError a call is refused with (fails the test if it succeeds or fails otherwise). */
export async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof ApiError, 'the call is refused');
  return error;
}

import { startGateway } from '@voice/gateway/testing';
import { type HttpApp, newId, parseEnv } from '@voice/kit';
import { createTestContext, type TestContext } from '@voice/kit/testing';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { type ConsoleDeps, connectDeps } from '../../src/deps.js';
import { acceptInvitation, createInvitation } from '../../src/domain/invitations.js';
import type { Role } from '../../src/domain/roles.js';
import { envSchema } from '../../src/env.js';

export const testPassword = 'correct horse battery staple';

export interface Harness {
  ctx: TestContext;
  deps: ConsoleDeps;
  app: HttpApp;
  /** The console's clock; tests move it forward to reach expiries. */
  clock: { now: Date; advanceMs(ms: number): void };
  /** A person with an account in the organization (invited and accepted through the domain, no HTTP). */
  person(orgId: string, role: Role, options?: { email?: string }): Promise<{ email: string; password: string; userId: string }>;
  /** A cookie-keeping client of the app, like a browser without JavaScript. */
  browser(options?: { address?: string }): Browser;
  close(): Promise<void>;
}

let people = 0;

/**
 * The console with a fresh database, Redis prefix and NATS namespace of its own, and a gateway serving its
 * NATS operations in the same namespace (no HTTP): every signed-in page asks it for the organizations' names
 * and plans, and without it each page waits out that call's deadline (5 s) before showing ids. `gateway:
 * false` leaves it out, for what is answered without one.
 */
export async function startHarness(env: Record<string, string> = {}, options: { gateway?: boolean } = {}): Promise<Harness> {
  const ctx = await createTestContext();
  const gateway = (options.gateway ?? true) ? await startGateway(ctx, {}, { auditWorker: false }) : undefined;
  const deps = await connectDeps(parseEnv(envSchema, { ...ctx.env, ...env }));
  const clock = {
    now: new Date(),
    advanceMs(ms: number) {
      clock.now = new Date(clock.now.getTime() + ms);
    },
  };
  deps.now = () => clock.now;
  const app = await buildApp(deps);
  await app.ready();
  return {
    ctx,
    deps,
    app,
    clock,
    person: (orgId, role, options) => invitePerson(deps, orgId, role, options),
    browser(options = {}) {
      return new Browser(app, options.address ?? '198.51.100.1');
    },
    async close() {
      await app.close();
      await deps.close();
      await gateway?.close();
      await ctx.cleanup();
    },
  };
}

/** A person with an account in the organization: invited and accepted through the domain, no HTTP. */
export async function invitePerson(
  deps: ConsoleDeps,
  orgId: string,
  role: Role,
  options: { email?: string } = {},
): Promise<{ email: string; password: string; userId: string }> {
  people += 1;
  const email = options.email ?? `person${people}.${Date.now()}@example.com`;
  const invitation = await createInvitation(deps, { orgId, email, role, invitedBy: null });
  const token = new URL(invitation.link).pathname.split('/').at(-1) ?? '';
  const accepted = await acceptInvitation(deps, token, {
    name: `Person ${people}`,
    password: testPassword,
    clientAddress: '192.0.2.250',
  });
  if (accepted.outcome !== 'accepted') throw new Error(`invitation not accepted: ${accepted.outcome}`);
  const user = await deps.prisma.user.findUniqueOrThrow({ where: { email: email.toLowerCase() } });
  return { email, password: testPassword, userId: user.id };
}

/** Keeps cookies between requests and the form token of the last page, as a browser would. */
export class Browser {
  readonly cookies = new Map<string, string>();
  /** The `_csrf` value of the last HTML page seen. */
  formToken: string | undefined;

  constructor(
    private readonly app: HttpApp,
    private readonly address: string,
  ) {}

  private cookieHeader(): Record<string, string> {
    return this.cookies.size === 0 ? {} : { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
  }

  private remember(response: LightMyRequestResponse): LightMyRequestResponse {
    for (const cookie of response.cookies as Array<{ name: string; value: string; maxAge?: number }>) {
      if (cookie.maxAge === 0) this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(response.body)?.[1];
    if (token) this.formToken = token;
    return response;
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    return this.remember(
      await this.app.inject({ method: 'GET', url, remoteAddress: this.address, headers: { ...this.cookieHeader(), ...headers } }),
    );
  }

  /**
   * Posts a form; with the last page's form token unless `csrf` says otherwise (`false`: none). Fields as
   * pairs may repeat a name, as a list of checkboxes does.
   */
  async post(
    url: string,
    fields: Record<string, string> | Array<[string, string]>,
    options: { csrf?: string | false } = {},
  ): Promise<LightMyRequestResponse> {
    const token = options.csrf === undefined ? this.formToken : options.csrf;
    const form = new URLSearchParams(fields);
    if (token) form.set('_csrf', token);
    const body = form.toString();
    return this.remember(
      await this.app.inject({
        method: 'POST',
        url,
        remoteAddress: this.address,
        headers: { ...this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: body,
      }),
    );
  }

  /** Posts a form with files (`multipart/form-data`, as a browser encodes it), with the last page's form token. */
  async postMultipart(url: string, form: FormData): Promise<LightMyRequestResponse> {
    if (this.formToken && !form.has('_csrf')) form.set('_csrf', this.formToken);
    const encoded = new Response(form);
    const payload = Buffer.from(await encoded.arrayBuffer());
    return this.remember(
      await this.app.inject({
        method: 'POST',
        url,
        remoteAddress: this.address,
        headers: { ...this.cookieHeader(), 'content-type': encoded.headers.get('content-type') ?? '' },
        payload,
      }),
    );
  }

  /** Signs in through the form, as a person would; returns the sign-in POST's response. */
  async signIn(email: string, password: string): Promise<LightMyRequestResponse> {
    await this.get('/dashboard/sign-in');
    return this.post('/dashboard/sign-in', { email, password });
  }
}

/** A new organization id: organizations are the gateway's, so the console takes any well-formed id. */
export const newOrgId = () => newId('org');

// Every console input, malformed: cookies, query strings, form bodies and path segments, with bad
// percent-encoding, huge values and repeated keys, on every route the console has, through the gateway as a
// browser reaches it. None may answer 500: a page's answer is a page. Used by the input-fuzz files.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { type Platform, startPlatform } from '@voice/gateway/testing';
import { requestBodyLimitBytes } from '@voice/proto';
import { resumeSession, startSession } from '../../src/domain/sessions.js';
import { invitePerson } from './harness.js';
import { type AppRoute, type RawResponse, rawRequest, routesOf } from './raw-http.js';

export const bad = '%E0%A4%A';
const long = (length: number) => 'a'.repeat(length);

export interface Variant {
  name: string;
  /** Appended to the path, e.g. a query string. */
  query?: string;
  cookie?: (session: Session) => string;
  /** A form body (POST only), given the form token. */
  form?: (csrf: string) => string;
  /** A body of another type (POST only). */
  body?: { type: string; text: string };
}

export interface Session {
  /** The cookie header of a browser in this state: a session, or only the sign-in page's form cookie. */
  cookie: string;
  /** The form token that goes with it. */
  csrf: string;
}

export const plain: Variant = { name: 'plain' };
// Each variant holds several faults of one kind at once: a request must survive all of them.
export const repeatedQuery: Variant = {
  name: 'query with repeated keys',
  query: '?cursor=a&cursor=b&next=a&next=b&status=a&status=b&client_id=a&client_id=b',
};
export const queryVariants: Variant[] = [
  {
    name: 'query with bad percent-encoding, huge values and __proto__',
    query: `?cursor=${bad}&next=%&status=%zz&tool=${bad}&from=${bad}&${bad}=1&__proto__=x&constructor=y&path_prefix=/${long(6000)}`,
  },
  repeatedQuery,
];

/** Cookies that keep a valid session (or form cookie) beside malformed ones and garbage. */
export const sessionKeepingCookie: Variant = {
  name: 'session cookie beside malformed ones',
  cookie: (session) => `;;==; =x; ${bad}; ${session.cookie}; console_session=${bad}; console_form=%; a=b=c`,
};
/** Cookies that replace the session and the form cookie with malformed ones. */
export const malformedCookies: Variant[] = [
  { name: 'cookies with bad percent-encoding', cookie: () => `console_session=${bad}; console_form=${bad}` },
  { name: 'huge cookies', cookie: () => `console_session=${long(6000)}; console_form=${long(6000)}` },
];

/** Forms whose fields reach the route's handler (with a valid form token). */
export const formFieldVariants: Variant[] = [
  {
    name: 'form with bad percent-encoding and __proto__',
    form: (csrf) => `_csrf=${csrf}&email=${bad}&password=%&name=%zz&url=${bad}&org_id=${bad}&__proto__=x&constructor=y`,
  },
  { name: 'form with repeated keys', form: (csrf) => `_csrf=${csrf}&_csrf=${csrf}&role=admin&role=owner` },
  { name: 'form with huge values', form: (csrf) => `_csrf=${csrf}&name=${long(30_000)}&email=${long(30_000)}` },
];
/** Bodies refused before any handler (the form token, the size, the type), signed in or not. */
export const refusedBodyVariants: Variant[] = [
  { name: 'form with a bad form token', form: () => `_csrf=${bad}&email=a%40example.com` },
  { name: 'form over the body limit', form: (csrf) => `_csrf=${csrf}&name=${long(requestBodyLimitBytes.console + 1)}` },
  { name: 'JSON body', body: { type: 'application/json', text: '{"_csrf":5,"email":{"a":1},"role":["owner"]}' } },
  {
    name: 'multipart body',
    body: { type: 'multipart/form-data; boundary=x', text: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--x--\r\n' },
  },
];

/** Values for a route's path parameters: one that could be real, then malformed ones. */
const usualParam = { name: 'an unknown id', value: 'nothing_here' };
const noParams = { name: 'no parameters', value: '' };
const malformedParams = [
  { name: 'an id just over 64 characters', value: long(65) },
  { name: 'a NUL', value: '%00' },
  { name: 'an encoded slash', value: '..%2F..%2Fx' },
];

// Signed in, only what reaches a route's handler: a repeated query key and a body that is no form are
// refused before the session is looked at, and malformed cookies count as no session, so the signed-out
// file covers them for every route.
/** What a signed-in page gets: a malformed query, and its session cookie beside malformed ones. */
export const signedInPageVariants: Variant[] = [queryVariants[0] as Variant, sessionKeepingCookie];
/** What a signed-in form gets: its fields malformed. */
export const signedInFormVariants: Variant[] = formFieldVariants;

export const isPage = (path: string) => path === '/dashboard' || path.startsWith('/dashboard/');
const withParams = (path: string, value: string) => path.replace(/:[A-Za-z_]+/g, value);

/**
 * What every answer must be: no 5xx; a page's error is an HTML page with the pages' headers, an OAuth
 * endpoint's its JSON error. Through the gateway, some input never reaches the console: a path the gateway's
 * router cannot decode or that holds a NUL, a body over the limit. Those are the gateway's own 4xx (the
 * API's envelope); an answer that came from the console says so in its `Server-Timing`.
 */
function assertAnswered(route: AppRoute, label: string, response: RawResponse, via: 'console' | 'gateway'): void {
  const where = `${route.method} ${route.path}, ${label}, via the ${via}: ${response.status} ${response.body.slice(0, 300)}`;
  assert.ok(response.status > 0 && response.status < 500, where);
  if (response.status < 400) return;
  if (isPage(route.path) && (via === 'console' || fromConsole(response))) {
    assert.match(String(response.headers['content-type']), /^text\/html/, where);
    assert.match(response.body, /<h1>/, where);
    assert.doesNotMatch(response.body, /Something went wrong/, where);
    assert.ok(response.headers['content-security-policy'], where);
  } else {
    assert.match(String(response.headers['content-type']), /^application\/json/, where);
  }
}

const fromConsole = (response: RawResponse) => String(response.headers['server-timing']).startsWith('console;');

/** Runs `work` on each item, `width` at a time. */
async function inParallel<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
}

type FuzzService = 'telephony' | 'leads' | 'recall' | 'console' | 'webhooks' | 'mcp';

export interface FuzzPlatform {
  platform: Platform<FuzzService>;
  /** The console's routes the gateway sends to it (its pages and its OAuth authorization server). */
  routes: AppRoute[];
  /** A fresh session of an owner of a Pro organization, with its form token. */
  signedIn(): Promise<Session>;
  /** A browser that has seen the sign-in page: its form cookie and token. */
  signedOut(): Promise<Session>;
  /**
   * Sends each variant to each route (of `method` and `paths`, or all), then (unless `params` is false) each malformed
   * path parameter plainly, and checks every answer.
   */
  fuzz(
    label: string,
    variantsOf: (route: AppRoute) => Variant[],
    sessionFor: (route: AppRoute) => Promise<Session>,
    options?: { params?: boolean; method?: 'GET' | 'POST'; paths?: (path: string) => boolean },
  ): Promise<void>;
  close(): Promise<void>;
}

/**
 * The gateway with the console and the services its pages call (webhooks, mcp, telephony, leads, recall: signed-in pages need them;
 * before sign-in the console alone answers), and an owner to sign in as.
 */
export async function startFuzzPlatform(
  services: FuzzService[] = ['telephony', 'leads', 'recall', 'console', 'webhooks', 'mcp'],
): Promise<FuzzPlatform> {
  const platform = (await startPlatform({ services })) as Platform<FuzzService>;
  const { orgId } = await platform.org({ plan: 'pro' });
  const { userId } = await invitePerson(platform.console.deps, orgId, 'owner');
  const routes = routesOf(platform.console.app).filter(
    (route) => isPage(route.path) || route.path.startsWith('/oauth/') || route.path.startsWith('/.well-known/'),
  );

  /**
   * The request through the gateway; when the gateway answered it itself, the same straight to the console
   * too (which only the gateway reaches in production), so the console's own answer is checked as well.
   */
  async function send(route: AppRoute, path: string, session: Session, variant: Variant, label: string): Promise<void> {
    const headers: Record<string, string> = { cookie: variant.cookie ? variant.cookie(session) : session.cookie };
    const url = `${path}${variant.query ?? ''}`;
    const form = variant.form ?? ((csrf: string) => `_csrf=${csrf}`);
    const body = variant.body ?? { type: 'application/x-www-form-urlencoded', text: form(session.csrf) };
    const to = (base: string) =>
      route.method === 'POST'
        ? rawRequest(base, 'POST', url, { ...headers, 'content-type': body.type }, body.text)
        : rawRequest(base, route.method, url, headers);
    const proxied = await to(platform.url);
    assertAnswered(route, label, proxied, 'gateway');
    if (isPage(route.path) && !fromConsole(proxied)) assertAnswered(route, label, await to(platform.console.url), 'console');
  }

  return {
    platform,
    routes,
    async signedIn() {
      const token = await startSession(platform.console.deps, userId, orgId);
      const resumed = await resumeSession(platform.console.deps, token);
      assert.ok(resumed);
      return { cookie: `console_session=${token}`, csrf: resumed.csrfToken };
    },
    async signedOut() {
      const page = await rawRequest(platform.url, 'GET', '/dashboard/sign-in');
      const cookie = ([] as string[]).concat(page.headers['set-cookie'] ?? []).find((line) => line.startsWith('console_form='));
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1];
      assert.ok(cookie && csrf, page.body);
      return { cookie: cookie.split(';')[0] ?? '', csrf };
    },
    async fuzz(label, variantsOf, sessionFor, options = {}) {
      const chosen = routes.filter(
        (route) => (options.method === undefined || route.method === options.method) && (options.paths?.(route.path) ?? true),
      );
      for (const route of chosen) {
        const shared = await sessionFor(route);
        // Signing out ends the session: those routes get one per request, the others one per route.
        const sessionOf = async () => (route.path.includes('sign-out') ? sessionFor(route) : shared);
        const cases = [
          ...variantsOf(route).map((variant) => ({ param: route.path.includes(':') ? usualParam : noParams, variant })),
          ...((options.params ?? true) && route.path.includes(':') ? malformedParams.map((param) => ({ param, variant: plain })) : []),
        ];
        // A few at a time: the platform runs in this one process, and waits on Postgres, Redis and NATS.
        await inParallel(cases, 6, async ({ param, variant }) =>
          send(route, withParams(route.path, param.value), await sessionOf(), variant, `${label}, ${param.name}, ${variant.name}`),
        );
      }
    },
    close: () => platform.close(),
  };
}

/**
 * A fuzz platform (`services` as `startFuzzPlatform` takes them) started before the tests of the caller's
 * `describe` and closed after them (the caller's file names the suite, so the runner's file times do too).
 */
export function useFuzzPlatform(services?: FuzzService[]): () => FuzzPlatform {
  let running: FuzzPlatform | undefined;
  before(async () => {
    running = await startFuzzPlatform(services);
  });
  after(async () => {
    await running?.close();
  });
  return () => {
    assert.ok(running, 'the platform started');
    return running;
  };
}

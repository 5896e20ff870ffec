import createClient, { type Client } from 'openapi-fetch';
import { VoiceApiError } from './errors.js';
import { operations as operationTable } from './operations.js';
import type { paths } from './schema.js';
import { type RateLimit, type RetryOptions, transport } from './transport.js';

export interface VoiceClientOptions {
  /** The API key (`vk_live_…`) or OAuth access token; `VOICE_API_KEY` by default. */
  apiKey?: string;
  /** The gateway's address; `VOICE_API_URL`, else http://127.0.0.1:8080 (the gateway's default port). */
  baseUrl?: string;
  /** Retries of 429 and 503, which wait as `Retry-After` says. */
  retry?: RetryOptions;
  /** The fetch to send with; the global one by default. */
  fetch?: (request: Request) => Promise<Response>;
}

/** Per call: the `Idempotency-Key` to send instead of a generated one (reuse it to retry a create yourself). */
export interface CallOptions {
  idempotencyKey?: string;
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
/** The paths that have an operation for the method. */
type PathsWith<M extends Method> = { [P in keyof paths]: [NonNullable<paths[P][M]>] extends [never] ? never : P }[keyof paths];
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type Parameters_<O> = O extends { parameters: infer X } ? X : never;
/** An operation's query parameters. */
export type QueryOf<O> = NonNullable<Parameters_<O> extends { query?: infer Q } ? Q : never>;
type PathParamsOf<O> = Parameters_<O> extends { path: infer X } ? X : undefined;
/** An operation's JSON request body. */
export type BodyOf<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type Success = 200 | 201 | 202;
/** What an operation answers on success (its 200, 201 or 202 body). */
export type ResultOf<O> = O extends { responses: infer R }
  ? { [S in Success & keyof R]: R[S] extends { content: { 'application/json': infer D } } ? D : never }[Success & keyof R]
  : never;
type ItemOf<O> = ResultOf<O> extends { data: Array<infer I> } ? I : never;
type Lists = {
  [P in PathsWith<'get'>]: ResultOf<Operation<P, 'get'>> extends { data: unknown[]; has_more: boolean } ? P : never;
}[PathsWith<'get'>];

type Table = typeof operationTable;
type OperationOf<K extends keyof Table> = Operation<Table[K]['path'], Table[K]['method']>;
/** What one operation takes: its path parameters, query and body, and an `Idempotency-Key` to send. */
export interface OperationInit<O> {
  path?: PathParamsOf<O>;
  query?: QueryOf<O>;
  body?: BodyOf<O>;
  idempotencyKey?: string | undefined;
}
/** A method for every operation of the API, named by its `operationId` (generated: src/operations.ts). */
export type OperationMethods = {
  [K in keyof Table]: (init?: OperationInit<OperationOf<K>>) => Promise<ResultOf<OperationOf<K>>>;
};

type Api = Client<paths>;
type Untyped = (
  method: string,
  path: string,
  init: { params?: { path?: unknown; query?: unknown }; body?: unknown; headers?: Record<string, string> },
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

const defaultBaseUrl = 'http://127.0.0.1:8080';

/**
 * The typed client of the voice platform's REST API. Areas are named after the API's resources
 * (`calls`, `sms`, `dnc`, `leads`, `sequences`, `invoices`, `webhooks`, …); every list is an async iterator
 * over all its pages; every create carries an `Idempotency-Key`; 429 and 503 are retried as `Retry-After`
 * says; an error answer throws `VoiceApiError`. `api` is the openapi-fetch client underneath, typed by
 * the OpenAPI document, for anything the areas do not cover.
 */
export class VoiceClient {
  readonly api: Api;
  #rateLimit: RateLimit | undefined;

  constructor(options: VoiceClientOptions = {}) {
    const apiKey = options.apiKey ?? process.env.VOICE_API_KEY;
    if (!apiKey) throw new Error('No API key: pass { apiKey } or set VOICE_API_KEY.');
    const baseUrl = options.baseUrl ?? process.env.VOICE_API_URL ?? defaultBaseUrl;
    this.api = createClient<paths>({
      baseUrl: baseUrl.replace(/\/+$/, ''),
      fetch: transport({
        apiKey,
        ...(options.retry ? { retry: options.retry } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
        onRateLimit: (rateLimit) => {
          this.#rateLimit = rateLimit;
        },
      }),
    });
  }

  /** The quota figures of the last response that had them (`X-RateLimit-Limit`, `-Remaining`, `-Reset`). */
  get rateLimit(): RateLimit | undefined {
    return this.#rateLimit;
  }

  /** One operation, by method and path; the answer's body, or a thrown `VoiceApiError`. */
  async request<M extends Method, P extends PathsWith<M>>(
    method: M,
    path: P,
    init: {
      path?: PathParamsOf<Operation<P, M>>;
      query?: QueryOf<Operation<P, M>>;
      body?: BodyOf<Operation<P, M>>;
      idempotencyKey?: string | undefined;
    } = {},
  ): Promise<ResultOf<Operation<P, M>>> {
    const { data, error, response } = await (this.api.request as unknown as Untyped)(method, path as string, {
      params: { path: init.path, query: init.query },
      ...(init.body !== undefined ? { body: init.body } : {}),
      ...(init.idempotencyKey ? { headers: { 'idempotency-key': init.idempotencyKey } } : {}),
    });
    if (!response.ok) throw new VoiceApiError(response.status, error, response.headers);
    return data as ResultOf<Operation<P, M>>;
  }

  /** Every item of a list, page after page (`next_cursor`), fetched as the loop asks for them. */
  async *paginate<P extends Lists>(
    path: P,
    query: QueryOf<Operation<P, 'get'>> = {} as QueryOf<Operation<P, 'get'>>,
    pathParams?: PathParamsOf<Operation<P, 'get'>>,
  ): AsyncGenerator<ItemOf<Operation<P, 'get'>>, void, undefined> {
    let cursor: string | undefined;
    do {
      const pageQuery = { ...query, ...(cursor ? { cursor } : {}) } as QueryOf<Operation<P, 'get'>>;
      const page = (await this.request('get', path, { query: pageQuery, ...(pathParams ? { path: pathParams } : {}) } as never)) as {
        data: ItemOf<Operation<P, 'get'>>[];
        has_more: boolean;
        next_cursor: string | null;
      };
      yield* page.data;
      cursor = page.has_more && page.next_cursor ? page.next_cursor : undefined;
    } while (cursor);
  }

  /**
   * Every operation by its `operationId`, as the OpenAPI document names it (`client.operations.listCalls({ query })`,
   * `client.operations.addDnc({ body })`): generated, so a new operation has its method here at once.
   */
  readonly operations: OperationMethods = Object.fromEntries(
    Object.entries(operationTable).map(([operationId, { method, path }]) => [
      operationId,
      (init: OperationInit<unknown> = {}) => this.request(method as never, path as never, init as never),
    ]),
  ) as unknown as OperationMethods;

  // The areas: one per resource, each method one operation, with its list as an iterator over all pages.

  readonly calls = {
    list: (query?: QueryOf<Operation<'/api/v1/phone/calls', 'get'>>) => this.paginate('/api/v1/phone/calls', query),
    get: (id: string) => this.request('get', '/api/v1/phone/calls/{id}', { path: { id } }),
    /** Queues an outbound call. */
    create: (body: BodyOf<Operation<'/api/v1/phone/calls', 'post'>>, options: CallOptions = {}) =>
      this.request('post', '/api/v1/phone/calls', { body, idempotencyKey: options.idempotencyKey }),
    cancel: (id: string) => this.request('post', '/api/v1/phone/calls/{id}/cancel', { path: { id } }),
    stats: (query?: QueryOf<Operation<'/api/v1/phone/calls/stats', 'get'>>) =>
      this.request('get', '/api/v1/phone/calls/stats', query ? { query } : {}),
  };

  /**
   * Test mode's helpers (README, "Test mode"): with a test key (`vk_test_…`) only; a live key gets 404. Move a
   * test call on, simulate inbound calls and messages, and send any webhook event to your test endpoints.
   */
  readonly testHelpers = {
    /** Moves a test call to its next state, or to the `status` or `outcome` given. */
    advanceCall: (id: string, body: BodyOf<Operation<'/api/v1/test_helpers/calls/{id}/advance', 'post'>> = {}) =>
      this.request('post', '/api/v1/test_helpers/calls/{id}/advance', { path: { id }, body }),
    inboundCall: (body: BodyOf<Operation<'/api/v1/test_helpers/calls/inbound', 'post'>>) =>
      this.request('post', '/api/v1/test_helpers/calls/inbound', { body }),
    inboundSms: (body: BodyOf<Operation<'/api/v1/test_helpers/sms/inbound', 'post'>>) =>
      this.request('post', '/api/v1/test_helpers/sms/inbound', { body }),
    triggerEvent: (body: BodyOf<Operation<'/api/v1/test_helpers/webhooks/trigger', 'post'>>) =>
      this.request('post', '/api/v1/test_helpers/webhooks/trigger', { body }),
  };

  readonly sms = {
    list: (query?: QueryOf<Operation<'/api/v1/phone/sms', 'get'>>) => this.paginate('/api/v1/phone/sms', query),
    get: (id: string) => this.request('get', '/api/v1/phone/sms/{id}', { path: { id } }),
    send: (body: BodyOf<Operation<'/api/v1/phone/sms', 'post'>>, options: CallOptions = {}) =>
      this.request('post', '/api/v1/phone/sms', { body, idempotencyKey: options.idempotencyKey }),
  };

  /** The do-not-call list. */
  readonly dnc = {
    list: (query?: QueryOf<Operation<'/api/v1/phone/dnc', 'get'>>) => this.paginate('/api/v1/phone/dnc', query),
    add: (body: BodyOf<Operation<'/api/v1/phone/dnc', 'post'>>, options: CallOptions = {}) =>
      this.request('post', '/api/v1/phone/dnc', { body, idempotencyKey: options.idempotencyKey }),
    check: (query: QueryOf<Operation<'/api/v1/phone/dnc/check', 'get'>>) => this.request('get', '/api/v1/phone/dnc/check', { query }),
    remove: (id: string) => this.request('delete', '/api/v1/phone/dnc/{id}', { path: { id } }),
  };

  readonly workspaces = {
    list: (query?: QueryOf<Operation<'/api/v1/workspaces', 'get'>>) => this.paginate('/api/v1/workspaces', query),
    get: (id: string) => this.request('get', '/api/v1/workspaces/{id}', { path: { id } }),
    create: (body: BodyOf<Operation<'/api/v1/workspaces', 'post'>>, options: CallOptions = {}) =>
      this.request('post', '/api/v1/workspaces', { body, idempotencyKey: options.idempotencyKey }),
    update: (id: string, body: BodyOf<Operation<'/api/v1/workspaces/{id}', 'patch'>>) =>
      this.request('patch', '/api/v1/workspaces/{id}', { path: { id }, body }),
    delete: (id: string) => this.request('delete', '/api/v1/workspaces/{id}', { path: { id } }),
  };

  readonly themes = {
    list: (query?: QueryOf<Operation<'/api/v1/themes', 'get'>>) => this.paginate('/api/v1/themes', query),
    get: (id: string) => this.request('get', '/api/v1/themes/{id}', { path: { id } }),
    create: (body: BodyOf<Operation<'/api/v1/themes', 'post'>>, options: CallOptions = {}) =>
      this.request('post', '/api/v1/themes', { body, idempotencyKey: options.idempotencyKey }),
    update: (id: string, body: BodyOf<Operation<'/api/v1/themes/{id}', 'patch'>>) =>
      this.request('patch', '/api/v1/themes/{id}', { path: { id }, body }),
    delete: (id: string) => this.request('delete', '/api/v1/themes/{id}', { path: { id } }),
    apply: (id: string, body: BodyOf<Operation<'/api/v1/themes/{id}/apply', 'post'>>) =>
      this.request('post', '/api/v1/themes/{id}/apply', { path: { id }, body }),
  };

  readonly leads = {
    list: (query?: QueryOf<Operation<'/api/v1/leads', 'get'>>) => this.paginate('/api/v1/leads', query),
    recent: (query?: QueryOf<Operation<'/api/v1/leads/recent', 'get'>>) => this.paginate('/api/v1/leads/recent', query),
    get: (id: string) => this.request('get', '/api/v1/leads/{id}', { path: { id } }),
    create: (body: BodyOf<Operation<'/api/v1/leads', 'post'>>, options: CallOptions = {}) =>
      this.request('post', '/api/v1/leads', { body, idempotencyKey: options.idempotencyKey }),
    update: (id: string, body: BodyOf<Operation<'/api/v1/leads/{id}', 'patch'>>) =>
      this.request('patch', '/api/v1/leads/{id}', { path: { id }, body }),
    delete: (id: string) => this.request('delete', '/api/v1/leads/{id}', { path: { id } }),
    notes: {
      list: (id: string, query?: QueryOf<Operation<'/api/v1/leads/{id}/notes', 'get'>>) =>
        this.paginate('/api/v1/leads/{id}/notes', query, { id }),
      create: (id: string, body: BodyOf<Operation<'/api/v1/leads/{id}/notes', 'post'>>, options: CallOptions = {}) =>
        this.request('post', '/api/v1/leads/{id}/notes', { path: { id }, body, idempotencyKey: options.idempotencyKey }),
    },
    enrollments: (id: string, query?: QueryOf<Operation<'/api/v1/leads/{id}/enrollments', 'get'>>) =>
      this.paginate('/api/v1/leads/{id}/enrollments', query, { id }),
  };

  readonly sequences = {
    list: (query?: QueryOf<Operation<'/api/v1/sequences', 'get'>>) => this.paginate('/api/v1/sequences', query),
    get: (id: string) => this.request('get', '/api/v1/sequences/{id}', { path: { id } }),
    create: (body: BodyOf<Operation<'/api/v1/sequences', 'post'>>, options: CallOptions = {}) =>
      this.request('post', '/api/v1/sequences', { body, idempotencyKey: options.idempotencyKey }),
    update: (id: string, body: BodyOf<Operation<'/api/v1/sequences/{id}', 'patch'>>) =>
      this.request('patch', '/api/v1/sequences/{id}', { path: { id }, body }),
    delete: (id: string) => this.request('delete', '/api/v1/sequences/{id}', { path: { id } }),
    enrollments: {
      list: (id: string, query?: QueryOf<Operation<'/api/v1/sequences/{id}/enrollments', 'get'>>) =>
        this.paginate('/api/v1/sequences/{id}/enrollments', query, { id }),
      /** Enrolls a lead. */
      create: (id: string, body: BodyOf<Operation<'/api/v1/sequences/{id}/enrollments', 'post'>>, options: CallOptions = {}) =>
        this.request('post', '/api/v1/sequences/{id}/enrollments', { path: { id }, body, idempotencyKey: options.idempotencyKey }),
      get: (id: string, enrollmentId: string) =>
        this.request('get', '/api/v1/sequences/{id}/enrollments/{enrollment_id}', { path: { id, enrollment_id: enrollmentId } }),
      stop: (id: string, enrollmentId: string) =>
        this.request('post', '/api/v1/sequences/{id}/enrollments/{enrollment_id}/stop', { path: { id, enrollment_id: enrollmentId } }),
    },
  };

  readonly invoices = {
    list: (query?: QueryOf<Operation<'/api/v1/invoices', 'get'>>) => this.paginate('/api/v1/invoices', query),
    get: (id: string) => this.request('get', '/api/v1/invoices/{id}', { path: { id } }),
    /** Drafts an invoice. */
    create: (body: BodyOf<Operation<'/api/v1/invoices', 'post'>>, options: CallOptions = {}) =>
      this.request('post', '/api/v1/invoices', { body, idempotencyKey: options.idempotencyKey }),
    update: (id: string, body: BodyOf<Operation<'/api/v1/invoices/{id}', 'patch'>>) =>
      this.request('patch', '/api/v1/invoices/{id}', { path: { id }, body }),
    delete: (id: string) => this.request('delete', '/api/v1/invoices/{id}', { path: { id } }),
    send: (id: string) => this.request('post', '/api/v1/invoices/{id}/send', { path: { id } }),
    markPaid: (id: string) => this.request('post', '/api/v1/invoices/{id}/pay', { path: { id } }),
    void: (id: string) => this.request('post', '/api/v1/invoices/{id}/void', { path: { id } }),
  };

  readonly projects = {
    list: (query?: QueryOf<Operation<'/api/v1/projects', 'get'>>) => this.paginate('/api/v1/projects', query),
    get: (id: string) => this.request('get', '/api/v1/projects/{id}', { path: { id } }),
    create: (body: BodyOf<Operation<'/api/v1/projects', 'post'>>, options: CallOptions = {}) =>
      this.request('post', '/api/v1/projects', { body, idempotencyKey: options.idempotencyKey }),
    update: (id: string, body: BodyOf<Operation<'/api/v1/projects/{id}', 'patch'>>) =>
      this.request('patch', '/api/v1/projects/{id}', { path: { id }, body }),
    delete: (id: string) => this.request('delete', '/api/v1/projects/{id}', { path: { id } }),
    deliver: (id: string) => this.request('post', '/api/v1/projects/{id}/deliver', { path: { id } }),
  };

  /** The knowledge base's documents. */
  readonly documents = {
    list: (query?: QueryOf<Operation<'/api/v1/knowledge/documents', 'get'>>) => this.paginate('/api/v1/knowledge/documents', query),
    get: (id: string) => this.request('get', '/api/v1/knowledge/documents/{id}', { path: { id } }),
    create: (body: BodyOf<Operation<'/api/v1/knowledge/documents', 'post'>>, options: CallOptions = {}) =>
      this.request('post', '/api/v1/knowledge/documents', { body, idempotencyKey: options.idempotencyKey }),
    update: (id: string, body: BodyOf<Operation<'/api/v1/knowledge/documents/{id}', 'patch'>>) =>
      this.request('patch', '/api/v1/knowledge/documents/{id}', { path: { id }, body }),
    delete: (id: string) => this.request('delete', '/api/v1/knowledge/documents/{id}', { path: { id } }),
  };

  /** `POST /api/v1/llm-recall`: `{query}` recalls over the knowledge base, `{brand, url}` scores a brand. */
  readonly recall = (body: BodyOf<Operation<'/api/v1/llm-recall', 'post'>>) => this.request('post', '/api/v1/llm-recall', { body });

  readonly marketingAudit = {
    /** The public, rate-limited audit (no key needed, but the client sends it anyway). */
    public: (body: BodyOf<Operation<'/api/public/marketing-audit', 'post'>>) =>
      this.request('post', '/api/public/marketing-audit', { body }),
  };

  readonly approvals = {
    list: (query?: QueryOf<Operation<'/api/v1/approvals', 'get'>>) => this.paginate('/api/v1/approvals', query),
    get: (id: string) => this.request('get', '/api/v1/approvals/{id}', { path: { id } }),
    channels: {
      list: () => this.request('get', '/api/v1/approvals/channels'),
      unlink: (kind: PathParamsOf<Operation<'/api/v1/approvals/channels/{kind}', 'delete'>>['kind']) =>
        this.request('delete', '/api/v1/approvals/channels/{kind}', { path: { kind } }),
    },
  };

  /** Webhook endpoints and their deliveries. */
  readonly webhooks = {
    list: (query?: QueryOf<Operation<'/api/v1/webhooks', 'get'>>) => this.paginate('/api/v1/webhooks', query),
    get: (id: string) => this.request('get', '/api/v1/webhooks/{id}', { path: { id } }),
    create: (body: BodyOf<Operation<'/api/v1/webhooks', 'post'>>, options: CallOptions = {}) =>
      this.request('post', '/api/v1/webhooks', { body, idempotencyKey: options.idempotencyKey }),
    update: (id: string, body: BodyOf<Operation<'/api/v1/webhooks/{id}', 'patch'>>) =>
      this.request('patch', '/api/v1/webhooks/{id}', { path: { id }, body }),
    delete: (id: string) => this.request('delete', '/api/v1/webhooks/{id}', { path: { id } }),
    rotateSecret: (id: string) => this.request('post', '/api/v1/webhooks/{id}/rotate-secret', { path: { id } }),
    /** Sends a `webhook.test` event to the endpoint. */
    test: (id: string) => this.request('post', '/api/v1/webhooks/{id}/test', { path: { id } }),
    deliveries: {
      list: (id: string, query?: QueryOf<Operation<'/api/v1/webhooks/{id}/deliveries', 'get'>>) =>
        this.paginate('/api/v1/webhooks/{id}/deliveries', query, { id }),
      get: (id: string, deliveryId: string) =>
        this.request('get', '/api/v1/webhooks/{id}/deliveries/{delivery_id}', { path: { id, delivery_id: deliveryId } }),
      replay: (id: string, deliveryId: string) =>
        this.request('post', '/api/v1/webhooks/{id}/deliveries/{delivery_id}/replay', { path: { id, delivery_id: deliveryId } }),
    },
  };

  /** This month's usage of the key and the organization's plan limits. */
  readonly usage = { get: () => this.request('get', '/api/v1/usage') };

  readonly auditLog = {
    list: (query?: QueryOf<Operation<'/api/v1/audit-log', 'get'>>) => this.paginate('/api/v1/audit-log', query),
  };
}

// The whole platform's /metrics after a little traffic, read as Prometheus reads them: the gateway's on its
// metrics port, each service's on its own port. Every metric name the dashboards and the alert rules use
// must be there (a histogram's _bucket, _sum and _count are its own name's), and the traffic must show in
// them: a lead created through the gateway and delivered to a webhook endpoint, a failed and a throttled
// sign-in on the console, an approval an agent asked for over MCP.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Platform, serviceNames, startPlatform } from '@voice/gateway/testing';
import { metricsRegistryOf, startMetricsServer } from '@voice/kit';
import { eventually, type Receiver, startReceiver } from '@voice/kit/testing';
import { Browser, invitePerson } from '../../services/console/test/support/harness.js';
import { dashboardExpressions, dashboards, metricNames, rules } from './support/observability.js';

/** One scrape: the metric families by name with their type, and every sample line. */
interface Scrape {
  types: Map<string, string>;
  samples: Array<{ name: string; labels: Record<string, string>; value: number }>;
}

function parseExposition(text: string): Scrape {
  const types = new Map<string, string>();
  const samples: Scrape['samples'] = [];
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1] as string, type[2] as string);
    if (line === '' || line.startsWith('#')) continue;
    const sample = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(sample, `an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (sample[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[name as string] = value as string;
    samples.push({ name: sample[1] as string, labels, value: Number(sample[3]) });
  }
  return { types, samples };
}

/** The series names a family exposes: a histogram's (and a summary's) suffixed ones too. */
function seriesNames(scrape: Scrape): Set<string> {
  const names = new Set<string>();
  for (const [name, type] of scrape.types) {
    names.add(name);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
    if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(`${name}${suffix}`);
  }
  return names;
}

/** Series Prometheus makes itself rather than scrapes. */
const prometheusOwn = new Set(['ALERTS', 'ALERTS_FOR_STATE', 'up']);

describe('every service exposes the metrics the dashboards and alerts read', () => {
  let platform: Platform;
  let receiver: Receiver;
  let agent: McpClient;
  const scrapes = new Map<string, Scrape>();

  before(async () => {
    receiver = await startReceiver();
    // Two wrong passwords for one account are allowed, the third is throttled.
    platform = await startPlatform({ console: { SIGN_IN_ACCOUNT_LIMIT: '2' } });
    const { orgId, key } = await platform.org({ plan: 'pro' });
    const api = (method: string, path: string, body: unknown) =>
      fetch(`${platform.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    // A lead created through the gateway, delivered to the endpoint that subscribes to every event.
    assert.equal((await api('POST', '/api/v1/webhooks', { url: receiver.url, event_types: ['*'] })).status, 201);
    const lead = await api('POST', '/api/v1/leads', { name: 'Ada Lovelace', phone: '+14155550101' });
    assert.equal(lead.status, 201, await lead.clone().text());
    const leadId = ((await lead.json()) as { id: string }).id;
    await receiver.waitFor((requests) => requests.some((request) => request.body.includes(leadId)));

    // A sign-in with a wrong password, twice, and a third attempt past the account's limit.
    const person = await invitePerson(platform.console.deps, orgId, 'owner');
    const browser = new Browser(platform.gateway.app, '198.51.100.20');
    assert.equal((await browser.signIn(person.email, 'not the password')).statusCode, 401);
    assert.equal((await browser.signIn(person.email, 'not the password either')).statusCode, 401);
    assert.equal((await browser.signIn(person.email, person.password)).statusCode, 429);

    // An agent asks to delete a lead: the approval waits for a person.
    agent = new McpClient({ name: 'metrics-test', version: '1.0.0' });
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(`${platform.url}/api/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    const asked = (await agent.callTool({ name: 'service_delete_lead', arguments: { lead_id: leadId } })) as CallToolResult;
    assert.ok(!asked.isError, JSON.stringify(asked.content));
    assert.equal((asked.structuredContent as { status?: string }).status, 'pending_approval');

    // The delivery's attempt is recorded once the worker's job ends; read until the webhooks service says so.
    const gatewayMetrics = await startMetricsServer(metricsRegistryOf(platform.gateway.app), '127.0.0.1', 0);
    try {
      scrapes.set('gateway', parseExposition(await (await fetch(gatewayMetrics.url)).text()));
    } finally {
      await gatewayMetrics.close();
    }
    for (const name of serviceNames) {
      const read = async () => {
        const response = await fetch(`${platform[name].url}/metrics`);
        assert.equal(response.status, 200);
        return parseExposition(await response.text());
      };
      scrapes.set(
        name,
        name === 'webhooks'
          ? await eventually('the delivery is counted', async () => {
              const scrape = await read();
              const ended = scrape.samples.find(
                (sample) => sample.name === 'webhooks_attempts_per_delivery_count' && sample.labels.outcome === 'delivered',
              );
              if (!ended || ended.value < 1) throw new Error('no delivered delivery counted yet');
              return scrape;
            })
          : await read(),
      );
    }
  });

  after(async () => {
    await agent?.close();
    await platform?.close();
    await receiver?.close();
  });

  const value = (service: string, name: string, labels: Record<string, string> = {}) => {
    const found = scrapes
      .get(service)
      ?.samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, wanted]) => sample.labels[key] === wanted));
    assert.ok(found && found.length > 0, `${service} exposes ${name}${JSON.stringify(labels)}`);
    return found.reduce((sum, sample) => sum + sample.value, 0);
  };

  test('every metric name of the dashboards and the rules is exposed by some service', () => {
    const exposed = new Set([...scrapes.values()].flatMap((scrape) => [...seriesNames(scrape)]));
    const recorded = new Set(rules().flatMap((rule) => (rule.record ? [rule.record] : [])));
    const used = new Map<string, string>();
    for (const rule of rules()) for (const name of metricNames(rule.expr)) used.set(name, `rule ${rule.alert ?? rule.record}`);
    for (const { file, dashboard } of dashboards()) {
      for (const expression of dashboardExpressions(dashboard)) for (const name of metricNames(expression)) used.set(name, file);
    }
    assert.ok(used.size > 30, `${used.size} names used`);
    const missing = [...used].filter(([name]) => !exposed.has(name) && !recorded.has(name) && !prometheusOwn.has(name));
    assert.deepEqual(missing, [], 'names used by a dashboard or rule that no service exposes');
  });

  test('every series names its service, and no label carries an id', () => {
    for (const [service, scrape] of scrapes) {
      assert.ok(
        scrape.samples.some((sample) => sample.name === 'process_start_time_seconds'),
        `${service}: its process metrics`,
      );
      for (const sample of scrape.samples) {
        assert.equal(sample.labels.service, service, `${sample.name} of ${service}`);
        for (const [label, text] of Object.entries(sample.labels)) {
          // The platform's ids: a prefix and 20 base62 characters (lead_…, org_…, dlv_ and 32 hex for deliveries).
          assert.doesNotMatch(text, /[a-z]+_[A-Za-z0-9]{20,}/, `${sample.name}{${label}="${text}"} of ${service}`);
        }
      }
    }
  });

  test('readiness checks pass in every service, and no value read at scrape time failed', () => {
    for (const service of scrapes.keys()) {
      for (const check of ['postgres', 'nats']) assert.equal(value(service, 'readiness_check_up', { check }), 1, `${service} ${check}`);
      const errors = scrapes.get(service)?.samples.filter((sample) => sample.name === 'metrics_collect_errors_total') ?? [];
      assert.deepEqual(
        errors.filter((sample) => sample.value > 0),
        [],
        `${service}: values read at scrape time`,
      );
    }
  });

  test('the gateway: requests by route that the SLOs select, quota decisions, the audit buffer, Redis persistence', () => {
    const routes = (scrapes.get('gateway')?.samples ?? [])
      .filter((sample) => sample.name === 'http_request_duration_seconds_count')
      .map((sample) => sample.labels.route ?? '');
    assert.ok(
      routes.some((route) => /^\/api\/v1\/.+/.test(route)),
      `an /api/v1 route as api_availability selects it: ${routes}`,
    );
    assert.ok(
      routes.some((route) => /^\/api\/mcp(\/.*)?$/.test(route)),
      `the MCP route as mcp_availability selects it: ${routes}`,
    );
    // The buckets the latency SLOs read, as Prometheus sees their `le`.
    for (const le of ['1', '2.5']) assert.ok(value('gateway', 'http_request_duration_seconds_bucket', { le }) >= 1, `le="${le}"`);
    assert.ok(value('gateway', 'gateway_quota_decisions_total', { decision: 'allowed' }) >= 3);
    assert.equal(value('gateway', 'gateway_quota_decisions_total', { decision: 'redis_unavailable' }), 0);
    assert.ok(Number.isFinite(value('gateway', 'gateway_audit_records_held')));
    assert.ok([0, 1].includes(value('gateway', 'gateway_redis_append_only')), 'the test Redis says whether it writes an AOF');
  });

  test('NATS requests are counted by operation and outcome, on both sides', () => {
    // The agent's delete is an approval: mcp asked leads for the lead over NATS first.
    assert.ok(value('mcp', 'nats_rpc_client_duration_seconds_count', { code: 'ok' }) >= 1);
    assert.ok(value('leads', 'nats_rpc_server_duration_seconds_count', { code: 'ok' }) >= 1);
    const operations = (scrapes.get('leads')?.samples ?? [])
      .filter((sample) => sample.name === 'nats_rpc_server_duration_seconds_count')
      .map((sample) => sample.labels.operation ?? '');
    assert.ok(
      operations.every((operation) => /^svc\.leads\./.test(operation)),
      `operations are subjects without the test namespace: ${operations}`,
    );
  });

  test("outboxes: the lead's event was published, and nothing waits", () => {
    assert.ok(value('leads', 'outbox_events_published_total') >= 1);
    assert.equal(value('leads', 'outbox_relay_failures_total'), 0);
    for (const service of ['gateway', 'telephony', 'leads', 'recall', 'mcp']) {
      assert.ok(value(service, 'outbox_pending_events') >= 0, service);
      assert.ok(value(service, 'outbox_oldest_pending_age_seconds') >= 0, service);
    }
  });

  test("webhooks: the delivery's attempt, first-attempt delay, latency and attempts; the queue; the fan-out consumer", () => {
    assert.ok(value('webhooks', 'webhooks_delivery_attempts_total', { result: '2xx' }) >= 1);
    assert.ok(value('webhooks', 'webhooks_delivery_first_attempt_delay_seconds_count') >= 1);
    assert.ok(
      value('webhooks', 'webhooks_delivery_first_attempt_delay_seconds_bucket', { le: '60' }) >= 1,
      'the bucket the delivery SLO reads',
    );
    assert.ok(value('webhooks', 'webhooks_delivery_latency_seconds_count') >= 1);
    assert.ok(value('webhooks', 'webhooks_attempts_per_delivery_sum', { outcome: 'delivered' }) >= 1);
    for (const state of ['waiting', 'delayed', 'active', 'failed'])
      assert.ok(value('webhooks', 'webhooks_delivery_queue_jobs', { state }) >= 0);
    assert.ok(value('webhooks', 'jetstream_consumer_pending_messages', { consumer: 'webhooks-fanout' }) >= 0);
    assert.ok(value('leads', 'jetstream_consumer_pending_messages', { consumer: 'leads-call-outcomes' }) >= 0);
  });

  test('mcp: the approval waits; console: the failed and the throttled sign-ins', () => {
    assert.ok(value('mcp', 'mcp_approvals_pending') >= 1);
    assert.ok(value('mcp', 'mcp_approvals_oldest_pending_age_seconds') >= 0);
    assert.equal(value('console', 'console_sign_in_attempts_total', { outcome: 'wrong_credentials' }), 2);
    assert.equal(value('console', 'console_sign_in_attempts_total', { outcome: 'throttled' }), 1);
    assert.equal(value('console', 'console_sign_in_attempts_total', { outcome: 'signed_in' }), 0);
  });
});

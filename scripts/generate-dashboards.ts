// Writes the Grafana dashboards of infra/observability/grafana from the panels declared here:
// `npm run generate:dashboards` (then `npx biome format --write infra/observability/grafana`). Edit this file,
// not the JSON: infra/test/observability.test.ts fails while the JSON differs from what this builds.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

type Unit = 'reqps' | 'ops' | 'percentunit' | 's' | 'short' | 'bytes' | 'none';

interface Query {
  expr: string;
  legend: string;
}

interface PanelSpec {
  title: string;
  description: string;
  queries: Query[];
  unit: Unit;
  kind?: 'timeseries' | 'stat';
  /** Width in grid columns of 24 (default 12). */
  width?: number;
}

type Section = { row: string; panels: PanelSpec[] };

// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, in a plain string on purpose
const datasource = { type: 'prometheus', uid: '${datasource}' };
const rate = (selector: string) => `rate(${selector}[$__rate_interval])`;
const q = (expr: string, legend: string): Query => ({ expr, legend });

/** A panel of one query. */
const single = (title: string, description: string, query: Query, unit: Unit, width?: number): PanelSpec => ({
  title,
  description,
  queries: [query],
  unit,
  ...(width === undefined ? {} : { width }),
});

function panel(spec: PanelSpec, id: number, x: number, y: number): Record<string, unknown> {
  const kind = spec.kind ?? 'timeseries';
  return {
    id,
    type: kind,
    title: spec.title,
    description: spec.description,
    datasource,
    gridPos: { h: 8, w: spec.width ?? 12, x, y },
    fieldConfig: { defaults: { unit: spec.unit }, overrides: [] },
    options:
      kind === 'stat'
        ? { reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false }, colorMode: 'value', graphMode: 'area' }
        : { legend: { displayMode: 'list', placement: 'bottom', showLegend: true }, tooltip: { mode: 'multi', sort: 'desc' } },
    targets: spec.queries.map((query, index) => ({
      datasource,
      expr: query.expr,
      legendFormat: query.legend,
      refId: String.fromCharCode(65 + index),
    })),
  };
}

/** Lays sections out in rows of panels, 24 columns wide, each panel 8 high. */
function layout(sections: Section[]): Record<string, unknown>[] {
  const panels: Record<string, unknown>[] = [];
  let id = 1;
  let y = 0;
  for (const section of sections) {
    panels.push({ id: id++, type: 'row', title: section.row, collapsed: false, gridPos: { h: 1, w: 24, x: 0, y }, panels: [] });
    y += 1;
    let x = 0;
    for (const spec of section.panels) {
      const width = spec.width ?? 12;
      if (x + width > 24) {
        x = 0;
        y += 8;
      }
      panels.push(panel(spec, id++, x, y));
      x += width;
    }
    y += 8;
  }
  return panels;
}

const datasourceVariable = {
  name: 'datasource',
  label: 'Prometheus',
  type: 'datasource',
  query: 'prometheus',
  current: {},
  hide: 0,
};

function dashboard(uid: string, title: string, description: string, sections: Section[], variables: unknown[] = []) {
  return {
    uid,
    title,
    description,
    tags: ['voice-platform'],
    timezone: 'utc',
    schemaVersion: 39,
    version: 1,
    editable: true,
    refresh: '30s',
    time: { from: 'now-6h', to: 'now' },
    templating: { list: [datasourceVariable, ...variables] },
    annotations: { list: [] },
    links: [{ title: 'Voice platform', type: 'dashboards', tags: ['voice-platform'], asDropdown: true }],
    panels: layout(sections),
  };
}

const http = 'http_request_duration_seconds';
const p99 = (selector: string, by: string) => `histogram_quantile(0.99, sum by (le, ${by}) (${rate(selector)}))`;

const sloPanels: PanelSpec[] = [
  single(
    'SLO burn rate (1 h)',
    "Each SLO's error ratio over the last hour divided by its budget (1 − target). Above 14.4 with the 5-minute ratio too, ErrorBudgetBurnFast pages; 1 spends exactly the 30-day budget.",
    q('slo:error_ratio:rate1h / on (slo) group_left () slo:error_budget:ratio', '{{slo}}'),
    'none',
  ),
  {
    title: 'SLO error ratio (1 d) against budget',
    description: 'Share of events failing each objective over the last day, beside the share its budget allows.',
    queries: [q('slo:error_ratio:rate1d', '{{slo}}'), q('slo:error_budget:ratio', '{{slo}} budget')],
    unit: 'percentunit',
  },
];

function overview() {
  return dashboard(
    'voice-platform-overview',
    'Voice platform: overview',
    'The platform at a glance: SLOs, firing alerts, traffic, errors and latency per service, dependencies and backlogs.',
    [
      {
        row: 'SLOs and alerts',
        panels: [
          ...sloPanels,
          single(
            'Firing alerts',
            "Alerts of the platform's rules that fire now (Prometheus' ALERTS series).",
            q('sum by (alertname, severity) (ALERTS{alertstate="firing"})', '{{alertname}} ({{severity}})'),
            'short',
            24,
          ),
        ],
      },
      {
        row: 'Traffic per service',
        panels: [
          single(
            'Requests per second',
            'HTTP requests answered, by deployable (probes and /metrics excluded).',
            q(`sum by (service) (${rate(`${http}_count`)})`, '{{service}}'),
            'reqps',
            8,
          ),
          {
            title: '5xx share',
            description: 'Share of HTTP answers that are 5xx, by deployable.',
            queries: [
              q(`sum by (service) (${rate(`${http}_count{status=~"5.."}`)}) / sum by (service) (${rate(`${http}_count`)})`, '{{service}}'),
            ],
            unit: 'percentunit',
            width: 8,
          },
          single(
            'p99 latency',
            '99th percentile of HTTP request durations, by deployable.',
            q(p99(`${http}_bucket`, 'service'), '{{service}}'),
            's',
            8,
          ),
        ],
      },
      {
        row: 'Dependencies and backlogs',
        panels: [
          single(
            'Readiness checks passing',
            "Lowest readiness check result over each deployable's processes: 1 every process reaches it, 0 one does not.",
            q('min by (service, check) (readiness_check_up)', '{{service}} {{check}}'),
            'short',
            8,
          ),
          single(
            'Outbox lag',
            'Age of the oldest event not yet published, by service (OutboxLagHigh above 60 s).',
            q('max by (service) (outbox_oldest_pending_age_seconds)', '{{service}}'),
            's',
            8,
          ),
          single(
            'Events waiting for consumers',
            'Events of the stream not yet delivered to each durable consumer.',
            q('max by (consumer) (jetstream_consumer_pending_messages)', '{{consumer}}'),
            'short',
            8,
          ),
          single(
            'Webhook jobs waiting',
            'Delivery jobs in the queue by state.',
            q('max by (state) (webhooks_delivery_queue_jobs)', '{{state}}'),
            'short',
            8,
          ),
          single(
            'Processes per service',
            'Processes scraped, by deployable (API and worker replicas together).',
            q('count by (service) (process_start_time_seconds)', '{{service}}'),
            'short',
            8,
          ),
          single(
            'Event loop lag p99',
            "Highest 99th percentile of the event loop's delay over each deployable's processes: CPU saturation shows here first.",
            q('max by (service) (nodejs_eventloop_lag_p99_seconds)', '{{service}}'),
            's',
            8,
          ),
        ],
      },
    ],
  );
}

function gateway() {
  const gw = (extra = '') => `${http}_count{service="gateway"${extra}}`;
  return dashboard('voice-gateway', 'Voice platform: gateway', 'The public entry: routes, quota decisions, audit buffer, NATS.', [
    {
      row: 'SLOs',
      panels: [
        single(
          'API and MCP error ratio (5 min)',
          'Share of requests failing each edge SLO: 5xx for availability, slower than the threshold for latency.',
          q('slo:error_ratio:rate5m{slo=~"api_.*|mcp_.*"}', '{{slo}}'),
          'percentunit',
        ),
        single('Status classes', 'Answers per second by status.', q(`sum by (status) (${rate(gw())})`, '{{status}}'), 'reqps'),
      ],
    },
    {
      row: 'Routes',
      panels: [
        single(
          'Requests by route',
          "Requests per second by route pattern (a proxied prefix, or the gateway's own route).",
          q(`sum by (route) (${rate(gw())})`, '{{route}}'),
          'reqps',
        ),
        single(
          '5xx by route',
          '5xx answers per second by route and status: 503 is a dependency or a service away.',
          q(`sum by (route, status) (${rate(gw(',status=~"5.."'))})`, '{{route}} {{status}}'),
          'reqps',
        ),
        single(
          'p99 by route',
          '99th percentile of request durations by route, proxying included.',
          q(p99(`${http}_bucket{service="gateway"}`, 'route'), '{{route}}'),
          's',
        ),
        single(
          'p50 by route',
          'Median request duration by route.',
          q(`histogram_quantile(0.5, sum by (le, route) (${rate(`${http}_bucket{service="gateway"}`)}))`, '{{route}}'),
          's',
        ),
      ],
    },
    {
      row: 'Quota and audit',
      panels: [
        single(
          'Quota decisions',
          'Authenticated requests by quota decision: allowed, over_quota (429), over_rate (429), revoked (401), redis_unavailable (503).',
          q(`sum by (decision) (${rate('gateway_quota_decisions_total')})`, '{{decision}}'),
          'reqps',
        ),
        {
          title: 'Audit records held and dropped',
          description: 'Audit records waiting for NATS in each gateway process, and those dropped because the buffer was full.',
          queries: [
            q('sum(gateway_audit_records_held)', 'held'),
            q(`sum(${rate('gateway_audit_records_dropped_total')})`, 'dropped per second'),
          ],
          unit: 'short',
        },
        {
          title: 'Redis append-only file',
          description: 'Whether the Redis holding quota counters writes an append-only file (1) or not (0).',
          queries: [q('min(gateway_redis_append_only)', 'appendonly')],
          unit: 'short',
          kind: 'stat',
        },
        {
          title: 'NATS requests made by the gateway',
          description: 'Requests to the services over NATS by operation and outcome.',
          queries: [
            q(`sum by (operation, code) (${rate('nats_rpc_client_duration_seconds_count{service="gateway"}')})`, '{{operation}} {{code}}'),
          ],
          unit: 'ops',
        },
      ],
    },
  ]);
}

function eventsAndWebhooks() {
  return dashboard(
    'voice-events-webhooks',
    'Voice platform: events and webhooks',
    "An event's way from a committed change to a customer's receiver: outbox, JetStream consumers, fan-out, the delivery queue, attempts.",
    [
      {
        row: 'Outboxes',
        panels: [
          single(
            'Outbox lag',
            'Age of the oldest unpublished event, by service.',
            q('max by (service) (outbox_oldest_pending_age_seconds)', '{{service}}'),
            's',
            8,
          ),
          single(
            'Events waiting in outboxes',
            'Rows written and not yet published, by service.',
            q('max by (service) (outbox_pending_events)', '{{service}}'),
            'short',
            8,
          ),
          {
            title: 'Relay throughput and failures',
            description: 'Events published per second by the relays, and their failed rounds (NATS or Postgres away).',
            queries: [
              q(`sum by (service) (${rate('outbox_events_published_total')})`, '{{service}} published'),
              q(`sum by (service) (${rate('outbox_relay_failures_total')})`, '{{service}} failed rounds'),
            ],
            unit: 'ops',
            width: 8,
          },
        ],
      },
      {
        row: 'JetStream consumers',
        panels: [
          single(
            'Pending',
            'Events not yet delivered to each durable consumer.',
            q('max by (consumer) (jetstream_consumer_pending_messages)', '{{consumer}}'),
            'short',
            8,
          ),
          single(
            'Acknowledgement pending',
            'Events delivered and not yet acknowledged: in a handler, or waiting to be delivered again.',
            q('max by (consumer) (jetstream_consumer_ack_pending_messages)', '{{consumer}}'),
            'short',
            8,
          ),
          single(
            'Redelivered',
            'Events being delivered again after a failed handler or an expired ack wait.',
            q('max by (consumer) (jetstream_consumer_redelivered_messages)', '{{consumer}}'),
            'short',
            8,
          ),
        ],
      },
      {
        row: 'Webhook deliveries',
        panels: [
          {
            title: 'Delivery SLO: first attempt within 60 s',
            description: 'Share of deliveries whose first attempt started more than 60 s after the event (budget 1%).',
            queries: [
              q('slo:error_ratio:rate5m{slo="webhook_delivery"}', '5 min'),
              q('slo:error_ratio:rate1h{slo="webhook_delivery"}', '1 h'),
            ],
            unit: 'percentunit',
            width: 8,
          },
          single(
            'Delivery queue by state',
            'Jobs waiting, delayed for a retry, active, and failed for good in BullMQ.',
            q('max by (state) (webhooks_delivery_queue_jobs)', '{{state}}'),
            'short',
            8,
          ),
          single(
            'Attempts by result',
            "Attempts per second by the receiver's status class, or why no answer came.",
            q(`sum by (result) (${rate('webhooks_delivery_attempts_total')})`, '{{result}}'),
            'ops',
            8,
          ),
          {
            title: 'Event to first attempt',
            description: "The platform's part of a delivery: from the event to its first attempt.",
            queries: [
              q(`histogram_quantile(0.5, sum by (le) (${rate('webhooks_delivery_first_attempt_delay_seconds_bucket')}))`, 'p50'),
              q(`histogram_quantile(0.99, sum by (le) (${rate('webhooks_delivery_first_attempt_delay_seconds_bucket')}))`, 'p99'),
            ],
            unit: 's',
            width: 8,
          },
          {
            title: 'Event to receiver',
            description: "From the event to the receiver's 2xx, retries included.",
            queries: [
              q(`histogram_quantile(0.5, sum by (le) (${rate('webhooks_delivery_latency_seconds_bucket')}))`, 'p50'),
              q(`histogram_quantile(0.99, sum by (le) (${rate('webhooks_delivery_latency_seconds_bucket')}))`, 'p99'),
            ],
            unit: 's',
            width: 8,
          },
          {
            title: 'Attempts per delivery',
            description: 'Mean attempts of the deliveries that ended, by outcome (delivered, failed, abandoned).',
            queries: [
              q(
                `sum by (outcome) (${rate('webhooks_attempts_per_delivery_sum')}) / sum by (outcome) (${rate('webhooks_attempts_per_delivery_count')})`,
                '{{outcome}}',
              ),
            ],
            unit: 'short',
            width: 8,
          },
        ],
      },
    ],
  );
}

function services() {
  const sel = (extra = '') => `{service="$service"${extra}}`;
  const serviceVariable = {
    name: 'service',
    label: 'Service',
    type: 'query',
    datasource,
    query: { query: 'label_values(process_start_time_seconds, service)', refId: 'service' },
    definition: 'label_values(process_start_time_seconds, service)',
    refresh: 2,
    sort: 1,
    current: {},
    hide: 0,
  };
  return dashboard(
    'voice-services',
    'Voice platform: service',
    'One deployable (choose it above): its routes, the NATS operations it serves and makes, its dependencies, its process; the approvals (mcp) and sign-ins (console) rows belong to those two.',
    [
      {
        row: 'HTTP',
        panels: [
          single(
            'Requests by route',
            'Requests per second by route pattern.',
            q(`sum by (route) (${rate(`${http}_count${sel()}`)})`, '{{route}}'),
            'reqps',
            8,
          ),
          single(
            'Errors by route',
            '5xx answers per second by route and status.',
            q(`sum by (route, status) (${rate(`${http}_count${sel(',status=~"5.."')}`)})`, '{{route}} {{status}}'),
            'reqps',
            8,
          ),
          single(
            'p99 by route',
            '99th percentile of request durations by route.',
            q(p99(`${http}_bucket${sel()}`, 'route'), '{{route}}'),
            's',
            8,
          ),
        ],
      },
      {
        row: 'NATS operations',
        panels: [
          single(
            'Served by outcome',
            'Requests this service answered per second, by operation and outcome code.',
            q(`sum by (operation, code) (${rate(`nats_rpc_server_duration_seconds_count${sel()}`)})`, '{{operation}} {{code}}'),
            'ops',
            8,
          ),
          single(
            'Served p99',
            '99th percentile of the time to answer, by operation.',
            q(p99(`nats_rpc_server_duration_seconds_bucket${sel()}`, 'operation'), '{{operation}}'),
            's',
            8,
          ),
          single(
            'Made by outcome',
            'Requests this service made per second, by operation and outcome (unavailable: no answer in time).',
            q(`sum by (operation, code) (${rate(`nats_rpc_client_duration_seconds_count${sel()}`)})`, '{{operation}} {{code}}'),
            'ops',
            8,
          ),
        ],
      },
      {
        row: 'Dependencies and outbox',
        panels: [
          single(
            'Readiness checks',
            'Each check per process: 1 passes, 0 fails.',
            q(`readiness_check_up${sel()}`, '{{instance}} {{check}}'),
            'short',
            8,
          ),
          single(
            'Outbox lag',
            'Age of the oldest unpublished event of this service.',
            q(`max(outbox_oldest_pending_age_seconds${sel()})`, 'lag'),
            's',
            8,
          ),
          single(
            'Metrics not read',
            'Values read at scrape time that failed or timed out (their gauges were left out), by collector.',
            q(`sum by (collector) (${rate(`metrics_collect_errors_total${sel()}`)})`, '{{collector}}'),
            'ops',
            8,
          ),
        ],
      },
      {
        row: 'Process',
        panels: [
          single(
            'CPU',
            'CPU seconds per second, by process.',
            q(`${rate(`process_cpu_seconds_total${sel()}`)}`, '{{instance}}'),
            'short',
            6,
          ),
          single(
            'Resident memory',
            'Resident set size, by process.',
            q(`process_resident_memory_bytes${sel()}`, '{{instance}}'),
            'bytes',
            6,
          ),
          single(
            'Event loop lag p99',
            "99th percentile of the event loop's delay, by process.",
            q(`nodejs_eventloop_lag_p99_seconds${sel()}`, '{{instance}}'),
            's',
            6,
          ),
          single(
            'Restarts (1 h)',
            'Process starts in the last hour, by process.',
            q(`changes(process_start_time_seconds${sel()}[1h])`, '{{instance}}'),
            'short',
            6,
          ),
        ],
      },
      {
        row: 'Approvals (mcp) and sign-ins (console)',
        panels: [
          {
            title: 'Approvals waiting',
            description: 'Approvals waiting for a person, and how long the oldest has waited.',
            queries: [q('max(mcp_approvals_pending)', 'pending'), q('max(mcp_approvals_oldest_pending_age_seconds)', 'oldest age (s)')],
            unit: 'short',
          },
          single(
            'Sign-ins by outcome',
            'Console sign-in submissions per second: signed_in, wrong_credentials, throttled.',
            q(`sum by (outcome) (${rate('console_sign_in_attempts_total')})`, '{{outcome}}'),
            'ops',
          ),
        ],
      },
    ],
    [serviceVariable],
  );
}

/** Every dashboard by file name. */
export function buildDashboards(): Record<string, unknown> {
  return {
    'platform-overview.json': overview(),
    'gateway.json': gateway(),
    'events-webhooks.json': eventsAndWebhooks(),
    'services.json': services(),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = new URL('../infra/observability/grafana/', import.meta.url);
  for (const [file, content] of Object.entries(buildDashboards()))
    writeFileSync(new URL(file, dir), `${JSON.stringify(content, null, 2)}\n`);
}

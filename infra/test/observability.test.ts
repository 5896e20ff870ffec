// The alert rules, their runbooks and the dashboards of infra/observability, checked without a Prometheus or
// a Grafana: promtool (Debian's `prometheus` package) checks the rule files and runs their unit tests, which
// fire and resolve every alert on synthetic series. Which metric names exist is checked against a running
// platform in metrics.int.test.ts.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { buildDashboards } from '../../scripts/generate-dashboards.js';
import {
  dashboardExpressions,
  dashboardFiles,
  dashboards,
  metricNames,
  observabilityDir,
  prometheusDir,
  ruleFiles,
  rules,
  ruleTestFiles,
} from './support/observability.js';

/** Runs promtool in the rules' folder; a missing promtool fails the test, saying how to install it. */
function promtool(args: string[]): { status: number; output: string } {
  const run = spawnSync('promtool', args, { cwd: fileURLToPath(prometheusDir), encoding: 'utf8', timeout: 120_000 });
  if ((run.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
    assert.fail(
      "promtool is not installed: `apt-get install -y prometheus` (Debian's package, which .ci/run installs) puts it at /usr/bin/promtool",
    );
  }
  if (run.error) throw run.error;
  return { status: run.status ?? 1, output: `${run.stdout}${run.stderr}` };
}

const alerts = rules().filter((rule) => rule.alert);
const runbooks = readFileSync(new URL('runbooks.md', observabilityDir), 'utf8');

interface RuleTest {
  eval_time: string;
  alertname: string;
  exp_alerts: { exp_labels?: Record<string, string> }[];
}
interface TestGroup {
  alert_rule_test?: RuleTest[];
}

/** Seconds of a promtool duration such as `1h30m`, `85m`, `9h50m`. */
function seconds(duration: string): number {
  const units: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };
  let total = 0;
  for (const [, amount, unit] of duration.matchAll(/(\d+)([smhd])/g)) total += Number(amount) * (units[unit as string] ?? 0);
  return total;
}

describe('Prometheus rules (infra/observability/prometheus)', () => {
  test('promtool check rules: every rule file is valid', () => {
    const { status, output } = promtool(['check', 'rules', ...ruleFiles]);
    assert.equal(status, 0, output);
    assert.equal(output.match(/SUCCESS/g)?.length, ruleFiles.length, output);
  });

  test('promtool check config: the example configuration, which loads both rule files', () => {
    const { status, output } = promtool(['check', 'config', 'prometheus.example.yml']);
    assert.equal(status, 0, output);
    for (const file of ruleFiles) assert.match(output, new RegExp(`Checking ${file}\\s+SUCCESS`), output);
  });

  test('promtool test rules: the unit tests pass', () => {
    const { status, output } = promtool(['test', 'rules', ...ruleTestFiles.map((file) => `tests/${file}`)]);
    assert.equal(status, 0, output);
    assert.doesNotMatch(output, /FAILED/, output);
  });

  test('the unit tests fire every alert (every SLO of the burn-rate alerts) and see it resolve later in the same series', () => {
    const groups = ruleTestFiles.flatMap(
      (file) => (parse(readFileSync(new URL(`tests/${file}`, prometheusDir), 'utf8')) as { tests: TestGroup[] }).tests,
    );
    const slos = [...new Set(rules().flatMap((rule) => (rule.record && rule.labels?.slo ? [rule.labels.slo] : [])))];
    assert.ok(slos.length >= 5, 'api and mcp availability and latency, webhook delivery');
    for (const alert of alerts) {
      const name = alert.alert as string;
      // The burn-rate alerts cover every SLO, each told apart by its label.
      for (const slo of name.startsWith('ErrorBudgetBurn') ? slos : [undefined]) {
        const resolved = groups.some((group) => {
          const tests = (group.alert_rule_test ?? []).filter((one) => one.alertname === name);
          const fired = tests.filter((one) => one.exp_alerts.some((fire) => slo === undefined || fire.exp_labels?.slo === slo));
          return fired.some((fire) =>
            tests.some((later) => later.exp_alerts.length === 0 && seconds(later.eval_time) > seconds(fire.eval_time)),
          );
        });
        assert.ok(resolved, `${name}${slo ? ` (slo ${slo})` : ''} fires in a unit test and resolves later in it`);
      }
    }
  });

  test('every alert has a severity, a summary, a description and a runbook entry that exists; every entry has its alert', () => {
    const headings = [...runbooks.matchAll(/^## (\w+)$/gm)].map((match) => match[1]);
    for (const alert of alerts) {
      const name = alert.alert as string;
      assert.match(alert.labels?.severity ?? '', /^(page|ticket)$/, `${name}: severity page or ticket`);
      assert.ok(alert.annotations?.summary && alert.annotations.description, `${name}: summary and description`);
      assert.equal(alert.annotations?.runbook_url, `infra/observability/runbooks.md#${name.toLowerCase()}`, name);
      assert.ok(headings.includes(name), `runbooks.md has "## ${name}"`);
      const entry = runbooks.slice(runbooks.indexOf(`## ${name}\n`)).split(/^## /m)[1] ?? '';
      for (const part of ['**Means.**', '**Look at.**', '**Do.**']) assert.ok(entry.includes(part), `${name}'s entry says ${part}`);
    }
    assert.deepEqual(headings.sort(), alerts.map((alert) => alert.alert).sort(), 'one runbook entry per alert, no other');
  });

  test('no label takes an unbounded value: the rules group by bounded labels only', () => {
    const bounded = new Set([
      'service',
      'slo',
      'operation',
      'consumer',
      'check',
      'state',
      'result',
      'decision',
      'outcome',
      'code',
      'route',
      'status',
      'method',
      'le',
    ]);
    for (const rule of rules()) {
      for (const [, labels] of rule.expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)) {
        for (const label of (labels ?? '')
          .split(',')
          .map((one) => one.trim())
          .filter(Boolean)) {
          assert.ok(bounded.has(label), `${rule.alert ?? rule.record}: grouped by ${label}`);
        }
      }
    }
  });
});

describe('PodMonitors (infra/observability/kubernetes) scrape what the pod annotations name', () => {
  interface Selector {
    matchLabels?: Record<string, string>;
    matchExpressions?: { key: string; operator: 'In' | 'NotIn'; values: string[] }[];
  }
  interface Workload {
    kind: string;
    metadata: { name: string };
    spec?: {
      template?: {
        metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
        spec: { containers: { ports?: { name?: string; containerPort: number }[] }[] };
      };
    };
  }
  interface PodMonitor {
    kind: string;
    metadata: { name: string };
    spec: { selector: Selector; podMetricsEndpoints: { port: string; path: string }[] };
  }
  const documents = <T>(url: URL) => parseAllDocuments(readFileSync(url, 'utf8')).map((document) => document.toJS() as T);
  const selects = (selector: Selector, labels: Record<string, string>) =>
    Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value) &&
    (selector.matchExpressions ?? []).every(({ key, operator, values }) => values.includes(labels[key] ?? '') === (operator === 'In'));

  test('every scraped pod of infra/k8s/base is selected by exactly one PodMonitor, on the port and path of its annotations', () => {
    const base = new URL('../k8s/base/', observabilityDir);
    const workloads = readdirSync(base)
      .filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml')
      .flatMap((file) => documents<Workload>(new URL(file, base)))
      .filter((workload) => workload.spec?.template);
    const monitors = documents<PodMonitor>(new URL('kubernetes/podmonitors.yaml', observabilityDir));
    assert.ok(monitors.every((monitor) => monitor.kind === 'PodMonitor'));
    const scraped = workloads.filter((workload) => workload.spec?.template?.metadata.annotations?.['prometheus.io/scrape'] === 'true');
    assert.ok(scraped.length >= 13, 'the gateway, six services and their workers');
    for (const workload of scraped) {
      const template = workload.spec?.template as NonNullable<NonNullable<Workload['spec']>['template']>;
      const selecting = monitors.filter((monitor) => selects(monitor.spec.selector, template.metadata.labels));
      assert.equal(selecting.length, 1, `${workload.metadata.name}: one PodMonitor`);
      const [endpoint] = (selecting[0] as PodMonitor).spec.podMetricsEndpoints;
      const port = template.spec.containers.flatMap((container) => container.ports ?? []).find((one) => one.name === endpoint?.port);
      assert.equal(String(port?.containerPort), template.metadata.annotations?.['prometheus.io/port'], `${workload.metadata.name}: port`);
      assert.equal(endpoint?.path, template.metadata.annotations?.['prometheus.io/path'], `${workload.metadata.name}: path`);
    }
  });
});

describe('Grafana dashboards (infra/observability/grafana)', () => {
  const all = dashboards();

  test('the platform overview, gateway, events and webhooks, and per-service dashboards, each with its own uid', () => {
    assert.deepEqual(
      all.map(({ file }) => file),
      ['events-webhooks.json', 'gateway.json', 'platform-overview.json', 'services.json'],
    );
    const uids = all.map(({ dashboard }) => dashboard.uid);
    assert.equal(new Set(uids).size, uids.length);
    for (const { file, dashboard } of all) {
      assert.ok(dashboard.title && dashboard.panels.length > 0, file);
      assert.ok(dashboardExpressions(dashboard).length > 0, `${file} has queries`);
      // Imported into any Grafana: the Prometheus data source is chosen on the dashboard, never a fixed uid.
      for (const panel of dashboard.panels.filter((one) => one.type !== 'row')) {
        // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, in a plain string on purpose
        assert.deepEqual(panel.datasource, { type: 'prometheus', uid: '${datasource}' }, `${file}: ${panel.title}`);
      }
    }
  });

  test('the JSON is what scripts/generate-dashboards.ts builds (npm run generate:dashboards)', () => {
    const built = buildDashboards();
    assert.deepEqual(Object.keys(built).sort(), dashboardFiles);
    for (const { file, dashboard } of all) assert.deepEqual(dashboard, built[file], `${file}: run npm run generate:dashboards`);
  });

  test("every query's metric names parse (the platform test checks that each exists)", () => {
    for (const { file, dashboard } of all) {
      for (const expression of dashboardExpressions(dashboard)) {
        assert.ok(metricNames(expression).length > 0, `${file}: ${expression} reads a metric`);
      }
    }
  });
});

describe('metric names of a PromQL expression', () => {
  test('functions, aggregations, keywords, label names, strings, durations and Grafana variables are not metrics', () => {
    assert.deepEqual(
      metricNames(
        'histogram_quantile(0.99, sum by (le, route) (rate(http_request_duration_seconds_bucket{service="gateway",route=~"/api/v1/.+"}[$__rate_interval])))',
      ),
      ['http_request_duration_seconds_bucket'],
    );
    assert.deepEqual(
      metricNames('slo:error_ratio:rate1h > on (slo) group_left () (14.4 * slo:error_budget:ratio) and absent(up{job="x"}) offset 5m'),
      ['slo:error_budget:ratio', 'slo:error_ratio:rate1h', 'up'],
    );
    assert.deepEqual(metricNames('label_values(process_start_time_seconds, service)'), ['process_start_time_seconds']);
    assert.deepEqual(metricNames('sum(rate(x_total{a="b(c)"}[5m])) / ignoring(a) 1e3 > bool 0'), ['x_total']);
  });
});

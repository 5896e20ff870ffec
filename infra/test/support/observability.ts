// What the observability tests read: the Prometheus rule files and their promtool tests, the Grafana
// dashboards, and the metric names their PromQL expressions use.
import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';

export const observabilityDir = new URL('../../observability/', import.meta.url);
export const prometheusDir = new URL('prometheus/', observabilityDir);
export const dashboardsDir = new URL('grafana/', observabilityDir);

export interface Rule {
  record?: string;
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export const ruleFiles = readdirSync(prometheusDir)
  .filter((file) => file.endsWith('.rules.yml'))
  .sort();
export const ruleTestFiles = readdirSync(new URL('tests/', prometheusDir))
  .filter((file) => file.endsWith('.test.yml'))
  .sort();

export function rules(): Rule[] {
  return ruleFiles.flatMap((file) =>
    (parse(readFileSync(new URL(file, prometheusDir), 'utf8')) as { groups: { rules: Rule[] }[] }).groups.flatMap((group) => group.rules),
  );
}

export interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating?: { list: { name: string; query?: unknown; definition?: string }[] };
}
export interface Panel {
  title: string;
  type: string;
  datasource?: { type: string; uid: string };
  targets?: { expr: string }[];
  panels?: Panel[];
}

export const dashboardFiles = readdirSync(dashboardsDir)
  .filter((file) => file.endsWith('.json'))
  .sort();

export function dashboards(): Array<{ file: string; dashboard: Dashboard }> {
  return dashboardFiles.map((file) => ({ file, dashboard: JSON.parse(readFileSync(new URL(file, dashboardsDir), 'utf8')) as Dashboard }));
}

/** Every PromQL expression of a dashboard: its panels' queries (rows included) and its variables' queries. */
export function dashboardExpressions(dashboard: Dashboard): string[] {
  const fromPanels = (panels: Panel[]): string[] =>
    panels.flatMap((panel) => [...(panel.targets ?? []).map((target) => target.expr), ...fromPanels(panel.panels ?? [])]);
  const variables = (dashboard.templating?.list ?? []).flatMap((variable) => {
    const query = typeof variable.query === 'object' && variable.query ? (variable.query as { query?: string }).query : variable.query;
    return typeof query === 'string' && /\(/.test(query) ? [query] : [];
  });
  return [...fromPanels(dashboard.panels), ...variables];
}

const keywords = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'offset',
  'bool',
  'inf',
  'nan',
]);

/**
 * The metric names a PromQL expression reads: identifiers that are neither functions nor aggregations (a
 * name followed by `(`), keywords, label names (inside `{…}` or a grouping clause), strings, durations, or
 * Grafana variables (`$service`, `${service}`, `$__rate_interval`). Grafana's `label_values(metric, label)`
 * gives its metric.
 */
export function metricNames(expression: string): string[] {
  let text = expression
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\$\{?[A-Za-z_]\w*\}?/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  // label_values(metric, label): the second argument is a label.
  text = text.replace(/\blabel_values\s*\(\s*([A-Za-z_:][\w:]*)\s*,\s*\w+\s*\)/g, ' $1 ');
  const names = new Set<string>();
  for (const match of text.matchAll(/(?<![\w.])([A-Za-z_:][\w:]*)(?!\w)(\s*\()?/g)) {
    const [, name, call] = match;
    if (!name || call || keywords.has(name.toLowerCase())) continue;
    // A number's exponent (1e3) or a duration (5m) after `offset` never reaches here: both start with a digit.
    names.add(name);
  }
  return [...names].sort();
}

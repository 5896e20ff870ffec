// The documents' tables of operations, scopes and tools, generated from the definitions: a README holds
// `<!-- generated: operations telephony -->` … `<!-- /generated -->` (or `tools`, `toolsets`, `magicnumbers`), and the text
// between the markers is replaced. Only the facts the definitions state go in a table; prose stays prose.
import {
  mcpToolsetInfo,
  mcpToolsets,
  operationsByService,
  publicRoutesByService,
  type RpcDefinition,
  testPhoneNumbers,
} from '@voice/proto';
import { allTools } from '../../services/mcp/src/mcp/catalog.js';

type Service = keyof typeof operationsByService;

const code = (text: string) => `\`${text}\``;
const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');
const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
const table = (head: string[], rows: string[][]) => [row(head), row(head.map(() => '---')), ...rows.map(row)].join('\n');

function toolsOf(operation: RpcDefinition): string[] {
  return allTools.filter((tool) => tool.operation === operation).map((tool) => code(tool.name));
}

/** One row per operation of a service: where it is (REST, NATS), the scope it needs, and what else is declared. */
function operationsTable(service: Service): string {
  const operations = Object.values(operationsByService[service] as Record<string, RpcDefinition>);
  const rows = operations.map((operation) => {
    const rest = operation.http.map((route) => `${route.method} ${code(openApiPath(route.path))}`).join('<br>') || 'NATS only';
    const notes = [
      operation.idempotent ? `idempotent (${code(operation.idempotent)})` : '',
      operation.approval ? 'an agent asks a person' : '',
      operation.errors.length > 0 ? `errors ${operation.errors.map(code).join(', ')}` : '',
    ].filter(Boolean);
    const summary = operation.http[0]?.summary ?? '';
    return [
      code(operation.name ?? ''),
      rest,
      code(operation.subject),
      operation.scope,
      toolsOf(operation).join(', '),
      [summary, ...notes].filter(Boolean).join('; '),
    ];
  });
  const publicRows = (publicRoutesByService[service] ?? []).map((route) => [
    code(route.operationId),
    `${route.method} ${code(route.path)}`,
    '',
    'public (no key)',
    '',
    route.summary,
  ]);
  return table(['operation', 'REST', 'NATS', 'scope', 'MCP tool', 'what'], [...rows, ...publicRows]);
}

/** The MCP tools by toolset: read, write, and those that only ask a person. */
function toolsTable(): string {
  const rows = mcpToolsets.map((toolset) => {
    const tools = allTools.filter((tool) => tool.toolset === toolset);
    const names = (kept: typeof tools) => kept.map((tool) => code(tool.name)).join(', ');
    return [
      code(toolset),
      names(tools.filter((tool) => tool.scope === 'read')),
      names(tools.filter((tool) => tool.scope !== 'read' && !tool.approval)),
      names(tools.filter((tool) => tool.approval)),
    ];
  });
  return table(['toolset', 'read', 'write', 'approval'], rows);
}

/** The toolsets: how many tools each has and how many read, what they cover, where a person does the same. */
function toolsetsTable(): string {
  const rows = mcpToolsets.map((toolset) => {
    const tools = allTools.filter((tool) => tool.toolset === toolset);
    const info = mcpToolsetInfo[toolset];
    return [
      code(toolset),
      String(tools.length),
      String(tools.filter((tool) => tool.scope === 'read').length),
      info.covers,
      info.console.map(code).join(', '),
    ];
  });
  const reads = allTools.filter((tool) => tool.scope === 'read').length;
  rows.push(['all (default)', String(allTools.length), String(reads), '', '']);
  return table(['toolset', 'tools', 'read tools', 'what', 'in the console'], rows);
}

/** Test mode's magic numbers (proto's `testPhoneNumbers`): what a test call or message to each does. */
function magicNumbersTable(): string {
  const rows = Object.entries(testPhoneNumbers).map(([number, { status, outcome, means }]) => [
    code(number),
    code(status),
    outcome ? code(outcome) : '—',
    means,
  ]);
  return table(['number', 'call status', 'outcome', 'what happens'], rows);
}

const marker = /<!-- generated: (\w+)(?: (\w+))? -->\n[\s\S]*?<!-- \/generated -->/g;

function generated(kind: string, argument: string | undefined): string {
  if (kind === 'operations' && argument !== undefined && argument in operationsByService) return operationsTable(argument as Service);
  if (kind === 'tools') return toolsTable();
  if (kind === 'toolsets') return toolsetsTable();
  if (kind === 'magicnumbers') return magicNumbersTable();
  throw new Error(`unknown generated table: ${kind} ${argument ?? ''}`);
}

/** A document's text with each generated table made anew. */
export function withGeneratedTables(text: string): string {
  return text.replace(marker, (_match, kind: string, argument: string | undefined) => {
    return `<!-- generated: ${kind}${argument ? ` ${argument}` : ''} -->\n${generated(kind, argument)}\n<!-- /generated -->`;
  });
}

/** The documents that hold generated tables. */
export const documentsWithTables = [
  'README.md',
  'gateway/README.md',
  'services/telephony/README.md',
  'services/leads/README.md',
  'services/recall/README.md',
  'services/mcp/README.md',
  'services/webhooks/README.md',
  'services/console/README.md',
];

// ARCHITECTURE.md's "How to add an operation", done for real in a temporary copy of the repository: one
// new operation (counting the do-not-call list) written in the files the recipe names, nothing else by
// hand, then `npm run generate:api`. The copy's REST route, NATS subject, gateway scope, MCP tool, typed
// client, OpenAPI document and README table must all have it. The copy shares node_modules with this
// checkout, except the workspace packages (@voice/*), which are the copy's own.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const workspaces = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
let copy: string;

/** The tracked and new files as they are in the working tree, the generated Prisma clients, and node_modules linked. */
function copyRepository(): string {
  const target = mkdtempSync(join(tmpdir(), 'voice-recipe-'));
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8' }).split('\0');
  for (const file of files) {
    if (file === '' || !existsSync(join(root, file))) continue;
    mkdirSync(dirname(join(target, file)), { recursive: true });
    cpSync(join(root, file), join(target, file));
  }
  for (const workspace of workspaces) {
    const generated = join(root, workspace, 'src/generated');
    if (existsSync(generated)) cpSync(generated, join(target, workspace, 'src/generated'), { recursive: true });
    const own = join(root, workspace, 'node_modules');
    if (existsSync(own)) symlinkSync(own, join(target, workspace, 'node_modules'));
  }
  mkdirSync(join(target, 'node_modules/@voice'), { recursive: true });
  for (const entry of readdirSync(join(root, 'node_modules'))) {
    if (entry !== '@voice') symlinkSync(join(root, 'node_modules', entry), join(target, 'node_modules', entry));
  }
  for (const workspace of workspaces) {
    const name = (JSON.parse(readFileSync(join(root, workspace, 'package.json'), 'utf8')) as { name: string }).name;
    symlinkSync(join(target, workspace), join(target, 'node_modules', name));
  }
  return target;
}

/** Inserts `text` after the first occurrence of `anchor` in a file of the copy; the anchor must be there. */
function insertAfter(file: string, anchor: string, text: string): void {
  const path = join(copy, file);
  const source = readFileSync(path, 'utf8');
  assert.ok(source.includes(anchor), `${file} has ${JSON.stringify(anchor)}`);
  writeFileSync(path, source.replace(anchor, `${anchor}${text}`));
}

function run(command: string, args: string[]): string {
  // Without NODE_TEST_CONTEXT: a `node --test` that inherits it reports to this runner instead of its own exit code.
  const { NODE_TEST_CONTEXT: _runner, ...env } = process.env;
  const result = spawnSync(command, args, { cwd: copy, encoding: 'utf8', env, timeout: 600_000 });
  assert.equal(result.status, 0, `${command} ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

before(() => {
  copy = copyRepository();

  // 1. The definition: contract, route, scope.
  insertAfter(
    'proto/src/telephony.ts',
    'export const telephonyRpc = nameOperations({\n',
    `  countDnc: defineRpc('svc.telephony.dnc.count', z.object({}), z.object({ count: z.number().int() }), 'read', {
    http: { method: 'GET', path: '/api/v1/phone/dnc/count', tags: ['dnc'], summary: 'How many numbers the do-not-call list holds' },
  }),
`,
  );
  // 2. The store (no migration: the table exists).
  writeFileSync(
    join(copy, 'services/telephony/src/store/dnc-count.ts'),
    `import type { PrismaClient } from '../generated/prisma/client.js';

export async function countDnc(prisma: PrismaClient, orgId: string) {
  return { count: await prisma.dncEntry.count({ where: { orgId } }) };
}
`,
  );
  // 3. The handler, one line in the service's map.
  insertAfter(
    'services/telephony/src/operations.ts',
    '  return {\n',
    '    countDnc: (_input, identity) => countDnc(prisma, identity.org_id),\n',
  );
  insertAfter('services/telephony/src/operations.ts', "from './store/dnc.js';\n", "import { countDnc } from './store/dnc-count.js';\n");
  // 4. The MCP tool.
  insertAfter(
    'services/mcp/src/tools/telephony.ts',
    'export const telephonyTools = [\n',
    `  defineTool({
    name: 'service_count_dnc',
    toolset: 'calls',
    title: 'Count the do-not-call list',
    description: 'How many numbers the do-not-call list holds.',
    operation: telephonyRpc.countDnc,
  }),
`,
  );
  // 5. The test: REST, NATS, the gateway's scope, the MCP catalogue and the typed client see it.
  writeFileSync(
    join(copy, 'services/telephony/test/dnc-count.int.test.ts'),
    `import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { VoiceClient } from '@voice/client';
import { testIdentity } from '@voice/kit/testing';
import { telephonyRpc } from '@voice/proto';
import { requiredScope } from '../../../gateway/src/auth/scopes.js';
import { ToolCatalog } from '../../mcp/src/mcp/catalog.js';
import { connectCaller, type Harness, startHarness } from './support/harness.js';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

test('the new operation over REST and NATS, at the gateway, in MCP and in the client', async () => {
  const identity = testIdentity();
  assert.equal((await h.request(identity, 'POST', '/api/v1/phone/dnc', { phone: '+14155550699' })).statusCode, 201);
  const rest = await h.request(identity, 'GET', '/api/v1/phone/dnc/count');
  assert.deepEqual([rest.statusCode, rest.json()], [200, { count: 1 }]);
  const caller = await connectCaller(h);
  assert.deepEqual(await caller.call(telephonyRpc.countDnc, identity, {}), { count: 1 });
  await caller.drain();
  assert.equal(requiredScope('GET', '/api/v1/phone/dnc/count'), 'read');
  const tool = new ToolCatalog().list({ scope: 'read' }).find((listed) => listed.name === 'service_count_dnc');
  assert.ok(tool, 'the MCP tool is listed to a read key');
  const seen: string[] = [];
  const client = new VoiceClient({
    apiKey: 'vk_live_test',
    baseUrl: 'http://client.test',
    fetch: async (request) => {
      seen.push(request.method + ' ' + new URL(request.url).pathname);
      return Response.json({ count: 1 });
    },
  });
  assert.deepEqual(await client.operations.countDnc(), { count: 1 });
  assert.deepEqual(seen, ['GET /api/v1/phone/dnc/count']);
});
`,
  );
});

after(() => {
  if (copy && !process.env.KEEP_RECIPE_COPY) rmSync(copy, { recursive: true, force: true });
});

test('a new operation, added as the recipe says, is everywhere it should be', () => {
  run('npx', ['tsx', '--conditions=source', 'scripts/generate-api.ts']);

  const document = JSON.parse(readFileSync(join(copy, 'openapi.json'), 'utf8')) as {
    paths: Record<string, Record<string, { operationId?: string; 'x-scope'?: string }>>;
  };
  const described = document.paths['/api/v1/phone/dnc/count']?.get;
  assert.deepEqual([described?.operationId, described?.['x-scope']], ['countDnc', 'read'], 'the OpenAPI document');
  assert.match(
    readFileSync(join(copy, 'packages/client/src/operations.ts'), 'utf8'),
    /countDnc: \{ method: 'get', path: '\/api\/v1\/phone\/dnc\/count' \}/,
  );
  assert.match(readFileSync(join(copy, 'packages/client/src/schema.ts'), 'utf8'), /"\/api\/v1\/phone\/dnc\/count"/);
  assert.match(
    readFileSync(join(copy, 'services/telephony/README.md'), 'utf8'),
    /\| `countDnc` \| GET `\/api\/v1\/phone\/dnc\/count` \| `svc.telephony.dnc.count` \| read \| `service_count_dnc` \|/,
    "the service README's operations table",
  );

  run('node', ['--conditions=source', '--import', 'tsx', '--test', 'services/telephony/test/dnc-count.int.test.ts']);
});

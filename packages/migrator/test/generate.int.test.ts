import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { migrateDatabase } from '../src/index.js';
import { copyFixture, dropDatabase, freshDatabaseUrl, runCli, withClient } from './helpers.js';

// The part of the generated clients this test uses (they are generated into a temporary folder, so
// their own types are not visible to the compiler here).
interface Thing {
  id: string;
  name: string;
  color: 'red' | 'blue';
  detail: unknown;
  parts?: Array<{ id: number; thingId: string }>;
}
interface XClient {
  thing: {
    create(args: { data: object; include?: object }): Promise<Thing>;
    findMany(args?: { include?: object; orderBy?: object }): Promise<Thing[]>;
  };
  $queryRawUnsafe<T>(sql: string): Promise<T>;
  $transaction<T>(work: (transaction: XClient) => Promise<T>): Promise<T>;
  $disconnect(): Promise<void>;
}
interface GatewayClient {
  organization: { create(args: { data: { id: string; name: string } }): Promise<{ id: string; createdAt: Date }> };
  $disconnect(): Promise<void>;
}
type ClientClass<T> = new (options: { adapter: PrismaPg }) => T;

async function importClient<T>(root: string, deployableDir: string): Promise<ClientClass<T>> {
  const module = (await import(pathToFileURL(join(root, deployableDir, 'src/generated/prisma/client.ts')).href)) as {
    PrismaClient: ClientClass<T>;
  };
  return module.PrismaClient;
}

describe('generate', () => {
  const fixture = copyFixture();
  const databaseUrl = freshDatabaseUrl();

  before(async () => {
    await migrateDatabase({ databaseUrl, rootDir: fixture.root, quiet: true });
  });

  after(async () => {
    await dropDatabase(databaseUrl);
    fixture.remove();
  });

  test('writes an importable client for every deployable, offline', async () => {
    const run = await runCli(['generate'], { cwd: fixture.root, databaseUrl });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'gateway: generated gateway/src/generated/prisma\nx: generated services/x/src/generated/prisma\n');
    assert.ok(existsSync(join(fixture.root, 'services/x/src/generated/prisma/client.ts')));
  });

  test("the runtime recipe sends a service's queries to its own schema", async () => {
    // A decoy where an unqualified table name would land with the default search_path.
    await withClient(databaseUrl, (client) =>
      client.query(`CREATE TABLE public."Thing" (id text PRIMARY KEY, name text); INSERT INTO public."Thing" VALUES ('decoy', 'decoy')`),
    );
    const XPrismaClient = await importClient<XClient>(fixture.root, 'services/x');
    const prisma = new XPrismaClient({
      adapter: new PrismaPg({ connectionString: databaseUrl, options: '-c search_path=x' }, { schema: 'x' }),
    });
    try {
      const created = await prisma.thing.create({
        data: { id: 'th_1', name: ' lamp ', color: 'blue', detail: { watts: 40 }, parts: { create: [{}, {}] } },
        include: { parts: true },
      });
      assert.equal(created.name, 'lamp', 'the trigger from the $$ migration ran');
      assert.equal(created.parts?.length, 2);
      assert.deepEqual(created.detail, { watts: 40 });
      await prisma.$transaction(async (transaction) => {
        await transaction.thing.create({ data: { id: 'th_2', name: 'desk' } });
      });
      const things = await prisma.thing.findMany({ include: { parts: true }, orderBy: { id: 'asc' } });
      assert.deepEqual(
        things.map((thing) => [thing.id, thing.color, thing.parts?.length]),
        [
          ['th_1', 'blue', 2],
          ['th_2', 'red', 0],
        ],
      );
      // Raw SQL with unqualified names relies on the search_path part of the recipe.
      const [count] = await prisma.$queryRawUnsafe<Array<{ parts: number }>>('SELECT count(*)::int AS parts FROM "Part"');
      assert.equal(count?.parts, 2);
    } finally {
      await prisma.$disconnect();
    }

    // The adapter's `schema` option alone already qualifies every model query.
    const schemaOnly = new XPrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }, { schema: 'x' }) });
    try {
      assert.deepEqual(
        (await schemaOnly.thing.findMany({ orderBy: { id: 'asc' } })).map((thing) => thing.id),
        ['th_1', 'th_2'],
      );
    } finally {
      await schemaOnly.$disconnect();
    }

    const GatewayPrismaClient = await importClient<GatewayClient>(fixture.root, 'gateway');
    const gateway = new GatewayPrismaClient({
      adapter: new PrismaPg({ connectionString: databaseUrl, options: '-c search_path=gateway' }, { schema: 'gateway' }),
    });
    try {
      const organization = await gateway.organization.create({ data: { id: 'org_1', name: 'Acme' } });
      assert.ok(organization.createdAt instanceof Date);
    } finally {
      await gateway.$disconnect();
    }
    const { rows } = await withClient(databaseUrl, (client) =>
      client.query<{ things: number; organizations: number; decoys: number }>(
        `SELECT (SELECT count(*)::int FROM x."Thing") AS things, (SELECT count(*)::int FROM gateway."Organization") AS organizations,
                (SELECT count(*)::int FROM public."Thing") AS decoys`,
      ),
    );
    assert.deepEqual(rows[0], { things: 2, organizations: 1, decoys: 1 });
  });
});

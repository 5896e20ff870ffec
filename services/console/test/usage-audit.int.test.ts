import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, type Platform, startPlatform, type TestGateway } from '@voice/gateway/testing';
import { newId } from '@voice/kit';
import { eventually } from '@voice/kit/testing';
import { Browser, invitePerson } from './support/harness.js';

const usagePage = '/dashboard/usage';
const auditPage = '/dashboard/audit-log';

/** The request ids in an audit page's table or a CSV, to compare which records a person sees. */
const requestIdsIn = (body: string) => new Set(body.match(/req_[0-9A-Za-z]+/g) ?? []);
const rowsOf = (body: string) => (body.match(/<tbody>([\s\S]*?)<\/tbody>/)?.[1]?.match(/<tr>/g) ?? []).length;

describe('the usage and audit log pages, through the gateway', () => {
  let platform: Platform<'console'>;
  let gateway: TestGateway;
  let a: { orgId: string; keyId: string; key: string };
  let b: { orgId: string; keyId: string; key: string };
  let member: Browser;

  const call = (key: string, url: string) => gateway.app.inject({ method: 'GET', url, headers: bearer(key) });
  const recordsOf = (orgId: string) => gateway.deps.prisma.auditRecord.findMany({ where: { orgId }, orderBy: { createdAt: 'desc' } });

  before(async () => {
    platform = await startPlatform({ services: ['console'], auditWorker: true, gateway: { AUDIT_FLUSH_MS: '50' } });
    gateway = platform.gateway;
    a = await platform.org({ plan: 'pro' });
    b = await platform.org({ plan: 'pro' });
    // Three successes and one refused call (400, a malformed cursor) for A; two calls for B.
    for (let index = 0; index < 3; index += 1) assert.equal((await call(a.key, '/api/v1/usage')).statusCode, 200);
    assert.equal((await call(a.key, '/api/v1/audit-log?cursor=not-a-cursor')).statusCode, 400);
    for (let index = 0; index < 2; index += 1) assert.equal((await call(b.key, '/api/v1/usage')).statusCode, 200);
    await eventually('the calls in the audit log', async () => {
      const [ofA, ofB] = await Promise.all([recordsOf(a.orgId), recordsOf(b.orgId)]);
      return ofA.length >= 4 && ofB.length >= 2 ? true : undefined;
    });
    const person = await invitePerson(platform.console.deps, a.orgId, 'member');
    member = new Browser(gateway.app, '198.51.100.9');
    assert.equal((await member.signIn(person.email, person.password)).statusCode, 303);
  });
  after(async () => {
    await platform.close();
  });

  test('a member sees the calls in the usage chart, its table, today against the plan and the key against its quota', async () => {
    const response = await member.get(usagePage);
    assert.equal(response.statusCode, 200, response.body);
    assert.match(response.body, /<a href="\/dashboard\/usage" aria-current="page">Usage<\/a>/);
    assert.match(response.body, /<svg class="usage-chart"[^>]*role="img" aria-labelledby="usage-chart-title usage-chart-desc"/);
    assert.match(response.body, /<desc id="usage-chart-desc">4 calls in 30 days/);
    const today = new Date().toISOString().slice(0, 10);
    const todayRow = response.body.match(new RegExp(`<tr><th scope="row">${today}</th>(.*?)</tr>`))?.[1] ?? '';
    assert.match(todayRow, /<td>4<\/td><td>4<\/td>$/, 'the key and the total of today in the data table');
    assert.match(response.body, /<p id="usage-today">\d+ of 1,000,000 calls allowed today by the plan\.<\/p>/);
    const keyRow = response.body.match(/<table id="usage-keys">[\s\S]*?<tbody>\s*<tr>(.*?)<\/tr>/)?.[1] ?? '';
    assert.match(keyRow, /<td>active<\/td><td>[1-9]\d*<\/td><td>[\d,]+<\/td>$/, 'the key has used part of its month');
    assert.equal(rowsOf(response.body.split('<table id="usage-keys">')[1] ?? ''), 1, "only A's key is listed");
  });

  test("a member reads the audit log with every filter; B's records never show", async () => {
    const records = await recordsOf(a.orgId);
    const all = await member.get(auditPage);
    assert.equal(all.statusCode, 200, all.body);
    assert.match(all.body, /<a href="\/dashboard\/audit-log" aria-current="page">Audit log<\/a>/);
    for (const id of ['audit-key', 'audit-actor', 'audit-status', 'audit-path', 'audit-from', 'audit-to'])
      assert.match(all.body, new RegExp(`id="${id}"`));
    assert.deepEqual(requestIdsIn(all.body), new Set(records.map((record) => record.requestId)));
    for (const record of await recordsOf(b.orgId)) assert.ok(!all.body.includes(record.requestId), "B's record is not on A's page");

    const refused = await member.get(`${auditPage}?status_class=4xx`);
    assert.equal(rowsOf(refused.body), 1);
    assert.match(refused.body, /<td><code>\/api\/v1\/audit-log<\/code><\/td>\s*<td>400<\/td>/);
    assert.equal(rowsOf((await member.get(`${auditPage}?path_prefix=%2Fapi%2Fv1%2Fusage&status_class=2xx`)).body), 3);
    assert.equal(rowsOf((await member.get(`${auditPage}?key_id=${a.keyId}&actor_type=key`)).body), 4);
    assert.match((await member.get(`${auditPage}?actor_type=user`)).body, /id="audit-empty"/);
    assert.match((await member.get(`${auditPage}?path_prefix=%2Fapi%2Fv1%2Fusag_`)).body, /id="audit-empty"/, '_ is not a wildcard');
    const today = new Date().toISOString().slice(0, 10);
    assert.equal(rowsOf((await member.get(`${auditPage}?from=${today}&to=${today}`)).body), 4);
    assert.match((await member.get(`${auditPage}?from=2020-01-01&to=2020-01-31`)).body, /id="audit-empty"/);
    // Another organization's key id in the filter finds nothing, rather than that organization's records.
    const tampered = await member.get(`${auditPage}?key_id=${b.keyId}`);
    assert.equal(tampered.statusCode, 200);
    assert.match(tampered.body, /id="audit-empty"/);
  });

  test('the log pages with a next link that keeps the filters; a bad cursor is a 400 page; B’s cursor shows only A’s records', async () => {
    const base = Date.now() - 60_000;
    await gateway.deps.prisma.auditRecord.createMany({
      data: Array.from({ length: 60 }, (_, index) => ({
        id: newId('audit'),
        orgId: a.orgId,
        keyId: a.keyId,
        method: 'GET',
        path: '/api/v1/phone_calls',
        status: 200,
        latencyMs: 3,
        requestId: newId('request'),
        createdAt: new Date(base - index * 1000),
      })),
    });
    const first = await member.get(`${auditPage}?path_prefix=%2Fapi%2Fv1%2Fphone`);
    assert.equal(rowsOf(first.body), 50);
    const next = first.body.match(/<a id="audit-next" href="([^"]+)"/)?.[1]?.replaceAll('&amp;', '&');
    assert.ok(next?.includes('path_prefix=%2Fapi%2Fv1%2Fphone&cursor='), next);
    const second = await member.get(next as string);
    assert.equal(second.statusCode, 200);
    assert.equal(rowsOf(second.body), 10);
    assert.doesNotMatch(second.body, /id="audit-next"/);
    const overlap = [...requestIdsIn(second.body)].filter((id) => requestIdsIn(first.body).has(id));
    assert.deepEqual(overlap, []);

    assert.equal(rowsOf((await member.get(`${auditPage}?path_prefix=%2Fapi%2Fv1%2Fphone_c`)).body), 50, 'a literal _ in a prefix matches');
    const bad = await member.get(`${auditPage}?cursor=garbage`);
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /That request was not valid/);
    assert.match(bad.body, /cursor/);
    // A cursor another organization got for the same filters only positions the list: the rows stay A's.
    const ofB = (await call(b.key, '/api/v1/audit-log?limit=1')).json() as { next_cursor: string | null };
    assert.ok(ofB.next_cursor);
    const crossed = await member.get(`${auditPage}?cursor=${encodeURIComponent(ofB.next_cursor)}`);
    assert.equal(crossed.statusCode, 200);
    const allowed = new Set((await recordsOf(a.orgId)).map((record) => record.requestId));
    assert.ok(requestIdsIn(crossed.body).size > 0);
    for (const id of requestIdsIn(crossed.body)) assert.ok(allowed.has(id), `${id} is A's`);
  });

  test('the CSV has the filtered rows, escaped, with formula cells neutralised', async () => {
    await gateway.deps.prisma.auditRecord.create({
      data: {
        id: newId('audit'),
        orgId: a.orgId,
        keyId: a.keyId,
        method: '=HYPERLINK("http://evil")',
        path: '/api/v1/odd,"quoted"',
        status: 404,
        latencyMs: 1,
        requestId: newId('request'),
        clientAddress: '@SUM(1)',
        createdAt: new Date(),
      },
    });
    const csv = await member.get(`${auditPage}.csv?status_class=4xx`);
    assert.equal(csv.statusCode, 200);
    assert.match(csv.headers['content-type'] as string, /^text\/csv/);
    assert.match(csv.headers['content-disposition'] as string, /^attachment; filename="audit-log-org_/);
    const lines = csv.body.trimEnd().split('\r\n');
    assert.equal(lines[0], 'created_at,actor_type,key_id,method,path,status,latency_ms,request_id,client_address');
    assert.equal(lines.length, 3, 'the header, the odd record and the refused call');
    assert.match(
      lines[1] as string,
      /,key,key_\w+,"'=HYPERLINK\(""http:\/\/evil""\)","\/api\/v1\/odd,""quoted""",404,1,req_\w+,'@SUM\(1\)$/,
    );
    assert.match(lines[2] as string, /,key,key_\w+,GET,\/api\/v1\/audit-log,400,\d+,req_\w+,/);
    for (const record of await recordsOf(b.orgId)) assert.ok(!csv.body.includes(record.requestId));
    assert.equal((await member.get(`${auditPage}.csv?cursor=garbage`)).statusCode, 400);
  });
});

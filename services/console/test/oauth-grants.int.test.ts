// Issue 28, "Grants and approvals": a grant, its access tokens and refresh tokens are bound to the resource
// (MCP URL) they were issued for, and a grant acts for the person who granted it. Form posts through the
// gateway as a client and a person make them, MCP requests as a client sends them; real gateway, console,
// mcp, leads and telephony services.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, type Platform, startPlatform } from '@voice/gateway/testing';
import { Browser, invitePerson } from './support/harness.js';
import { oauthFlow } from './support/oauth-flow.js';

describe('grants: bound to their resource, acting for their grantor', () => {
  let platform: Platform<'telephony' | 'leads' | 'mcp' | 'console'>;
  let base: string;
  let orgA: { orgId: string; key: string };
  let owner: { email: string; password: string; userId: string };

  before(async () => {
    platform = await startPlatform({ services: ['telephony', 'leads', 'mcp', 'console'] });
    base = platform.url;
    orgA = await platform.org({ plan: 'pro' });
    owner = await invitePerson(platform.console.deps, orgA.orgId, 'owner');
  });
  after(async () => {
    await platform?.close();
  });

  const { tokenRequest, tokensFor, mcpRequest, callTool, assertEndedBySystem, errorOf } = oauthFlow(() => ({
    platform,
    base,
    owner,
    orgA,
    mcpUrl: new URL(`${base}/api/mcp`),
  }));

  test('a grant is bound to its resource: the consent page says what it reaches; its token works on that URL alone', async () => {
    const readonlyUrl = `${base}/api/mcp/x/leads/readonly`;
    // The consent page says in words what the app will reach, and names the organization, not its id.
    const shown: string[] = [];
    const readonly = await tokensFor({
      resource: readonlyUrl,
      scope: 'read-write',
      chosenScope: 'read',
      consent: (page) => shown.push(page),
    });
    assert.match(shown[0] ?? '', /It will reach: <strong>Leads, read-only, through MCP<\/strong>/);
    assert.match(shown[0] ?? '', /<option value="[^"]+" selected>Acme \(owner, pro: read or read-write\)<\/option>/);
    assert.doesNotMatch(shown[0] ?? '', new RegExp(`>${orgA.orgId} \\(`), 'the organization by name, not id');
    assert.match(shown[0] ?? '', /<p class="org">.*<strong>Acme<\/strong>/, 'the organization by name in the header too');
    assert.doesNotMatch(shown[0] ?? '', /type="radio" name="scope" value="read-write"/, 'a read-only URL offers read alone');
    assert.equal(readonly.grant?.scope, 'read');
    assert.equal(readonly.grant?.resource, readonlyUrl);
    // On its own URL: exactly what that URL offers.
    const own = await mcpRequest(readonly.access_token, '/api/mcp/x/leads/readonly', 'tools/list');
    assert.deepEqual(own.body.result?.tools?.map((tool) => tool.name).sort(), [
      'service_get_lead',
      'service_list_leads',
      'service_recent_leads',
    ]);
    // Anywhere else: refused before any MCP, the REST API included.
    const whole = await mcpRequest(readonly.access_token, '/api/mcp', 'tools/list');
    assert.equal(whole.status, 401);
    assert.match(whole.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    const sms = await fetch(`${base}/api/v1/phone/sms`, {
      method: 'POST',
      headers: { ...bearer(readonly.access_token), 'content-type': 'application/json' },
      body: JSON.stringify({ to: '+14155550100', body: 'hello' }),
    });
    assert.equal(sms.status, 401);
    assert.equal(((await sms.json()) as { error: { code: string } }).error.code, 'invalid_token');
    assert.match(sms.headers.get('www-authenticate') ?? '', /resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/api\/v1"/);

    // A read-write grant for the leads toolset writes leads there, and reaches nothing else.
    const leadsUrl = `${base}/api/mcp/x/leads`;
    const writer = await tokensFor({ resource: leadsUrl, scope: 'read-write', consent: (page) => shown.push(page) });
    assert.match(shown[1] ?? '', /It will reach: <strong>Leads, through MCP<\/strong>/);
    assert.deepEqual([writer.grant?.scope, writer.grant?.resource], ['read-write', leadsUrl]);
    const created = await callTool(writer.access_token, '/api/mcp/x/leads', 'service_create_lead', { name: 'Ada Lovelace' });
    assert.notEqual(created.body.result?.isError, true, JSON.stringify(created.body));
    const outside = await callTool(writer.access_token, '/api/mcp/x/leads', 'service_send_sms', { to: '+14155550100', body: 'hi' });
    assert.match(outside.body.error?.message ?? '', /Unknown tool/);
    assert.equal((await callTool(writer.access_token, '/api/mcp', 'service_send_sms', { to: '+14155550100', body: 'hi' })).status, 401);

    // A refresh cannot change the resource; one that names its own goes on, bound to it.
    const moved = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: writer.refresh_token,
      client_id: writer.clientId,
      resource: `${base}/api/mcp`,
    });
    assert.equal(await errorOf(moved), 'invalid_target');
    const refreshed = await tokenRequest({ grant_type: 'refresh_token', refresh_token: writer.refresh_token, client_id: writer.clientId });
    assert.equal(refreshed.status, 200);
    const next = (await refreshed.json()) as { access_token: string };
    assert.equal((await mcpRequest(next.access_token, '/api/mcp/x/leads', 'tools/list')).status, 200);
    assert.equal((await mcpRequest(next.access_token, '/api/mcp', 'tools/list')).status, 401);
  });

  test('a grant acts for its grantor: removing them revokes it (the members page says so first); a member keeps no write', async () => {
    const ownerBrowser = new Browser(platform.gateway.app, '198.51.100.43');
    await ownerBrowser.signIn(owner.email, owner.password);
    const membershipOf = (userId: string) =>
      platform.console.deps.prisma.membership.findUniqueOrThrow({ where: { orgId_userId: { orgId: orgA.orgId, userId } } });

    // An admin grants an app read-write; the owner removes the admin.
    const admin = await invitePerson(platform.console.deps, orgA.orgId, 'admin');
    const granted = await tokensFor({ person: admin, scope: 'read-write', clientName: 'Removed admin app' });
    assert.equal(granted.grant?.scope, 'read-write');
    assert.notEqual(
      (await callTool(granted.access_token, '/api/mcp', 'service_create_lead', { name: 'Before' })).body.result?.isError,
      true,
    );
    const membership = await membershipOf(admin.userId);
    const confirm = await ownerBrowser.get(`/dashboard/members/${membership.id}/remove`);
    assert.equal(confirm.statusCode, 200);
    assert.match(confirm.body, /also revokes the app they connected/);
    assert.match(confirm.body, /<li>Removed admin app \(read-write\)<\/li>/);
    const removed = await ownerBrowser.post(`/dashboard/members/${membership.id}/remove`, {});
    assert.equal(removed.statusCode, 303, removed.body);
    const after = await callTool(granted.access_token, '/api/mcp', 'service_create_lead', { name: 'After' });
    assert.equal(after.status, 401, 'the token is refused from the next request');
    const refresh = await tokenRequest({ grant_type: 'refresh_token', refresh_token: granted.refresh_token, client_id: granted.clientId });
    assert.equal(await errorOf(refresh), 'invalid_grant');
    const apps = await ownerBrowser.get('/dashboard/settings/connected-apps');
    assert.match(apps.body, /Removed admin app[\s\S]*?Revoked/);
    await assertEndedBySystem(granted.grant?.id as string, 'member_removed');

    // An admin made a member: their read-write grant stops writing at once and cannot be refreshed; a
    // read grant of theirs goes on.
    const demoted = await invitePerson(platform.console.deps, orgA.orgId, 'admin');
    const writes = await tokensFor({ person: demoted, scope: 'read-write' });
    const reads = await tokensFor({ person: demoted, scope: 'read' });
    const sms = { to: '+14155550100', body: 'hello' };
    assert.notEqual((await callTool(writes.access_token, '/api/mcp', 'service_send_sms', sms)).body.result?.isError, true);
    await ownerBrowser.get('/dashboard/members');
    const changed = await ownerBrowser.post(`/dashboard/members/${(await membershipOf(demoted.userId)).id}/role`, { role: 'member' });
    assert.equal(changed.statusCode, 303, changed.body);
    assert.equal((await callTool(writes.access_token, '/api/mcp', 'service_send_sms', sms)).status, 401);
    const refreshWrites = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: writes.refresh_token,
      client_id: writes.clientId,
    });
    assert.equal(await errorOf(refreshWrites), 'invalid_grant');
    await assertEndedBySystem(writes.grant?.id as string, 'role_changed');
    assert.equal((await mcpRequest(reads.access_token, '/api/mcp', 'tools/list')).status, 200);
    const refreshReads = await tokenRequest({ grant_type: 'refresh_token', refresh_token: reads.refresh_token, client_id: reads.clientId });
    assert.equal(refreshReads.status, 200, 'a read grant is within a member’s role');
  });

  test('a grant whose grantor left is ended at its next refresh, even if their removal never reached the gateway', async () => {
    const leaving = await invitePerson(platform.console.deps, orgA.orgId, 'admin');
    const granted = await tokensFor({ person: leaving, scope: 'read' });
    // The membership goes without the console's removal (as if the gateway had not answered it).
    await platform.console.deps.prisma.membership.deleteMany({ where: { orgId: orgA.orgId, userId: leaving.userId } });
    const refresh = await tokenRequest({ grant_type: 'refresh_token', refresh_token: granted.refresh_token, client_id: granted.clientId });
    assert.equal(await errorOf(refresh), 'invalid_grant');
    assert.equal((await mcpRequest(granted.access_token, '/api/mcp', 'tools/list')).status, 401);
    await assertEndedBySystem(granted.grant?.id as string, 'member_removed');
  });
});

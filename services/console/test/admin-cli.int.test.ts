// `npm run -s admin -- user invite`, run as the operator runs it, against a gateway that knows organizations
// (they are the gateway's; the console's CLI asks it over NATS before making an invitation).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Platform, startPlatform } from '@voice/gateway/testing';
import { hashToken } from '../src/domain/tokens.js';
import { runAdmin } from './support/admin-cli.js';
import { newOrgId } from './support/harness.js';

const day = 24 * 60 * 60_000;

describe('npm run -s admin -- user invite', () => {
  let platform: Platform<'console'>;

  before(async () => {
    platform = await startPlatform({ services: ['console'] });
  });
  after(() => platform.close());

  const invite = (args: string[], env: Record<string, string> = {}) =>
    runAdmin(['user', 'invite', ...args], { ...platform.ctx.env, ...env });
  const errorOf = (stderr: string) => (JSON.parse(stderr) as { error: { code: string; message: string } }).error;
  const invitationsOf = (orgId: string) => platform.console.deps.prisma.invitation.count({ where: { orgId } });

  test('prints JSON with a one-time link for an organization the gateway knows; only the token hash is stored', async () => {
    const { orgId } = await platform.org();
    const run = await invite(['--org', orgId, '--email', 'First.Owner@Example.com', '--role', 'owner'], {
      PUBLIC_BASE_URL: 'https://console.example.com',
    });
    assert.equal(run.status, 0, run.stderr);
    const printed = JSON.parse(run.stdout) as { id: string; org_id: string; email: string; role: string; expires_at: string; link: string };
    assert.equal(printed.org_id, orgId);
    assert.equal(printed.email, 'first.owner@example.com');
    assert.equal(printed.role, 'owner');
    assert.match(printed.link, /^https:\/\/console\.example\.com\/dashboard\/invitations\/[A-Za-z0-9_-]{43}$/);
    const days = (Date.parse(printed.expires_at) - Date.now()) / day;
    assert.ok(days > 6.99 && days <= 7, `expires in ${days} days`);
    const token = printed.link.split('/').at(-1) ?? '';
    const row = await platform.console.deps.prisma.invitation.findUniqueOrThrow({ where: { id: printed.id } });
    assert.equal(row.tokenHash, hashToken(token));
  });

  test('refuses a well-formed organization id the gateway does not know: JSON not_found, exit 1, no invitation', async () => {
    const orgId = newOrgId();
    const run = await invite(['--org', orgId, '--email', 'nobody@example.com', '--role', 'owner']);
    assert.equal(run.status, 1);
    assert.equal(run.stdout, '');
    const error = errorOf(run.stderr);
    assert.equal(error.code, 'not_found');
    assert.match(error.message, new RegExp(`The gateway knows no organization ${orgId}\\. Create it first`));
    assert.equal(await invitationsOf(orgId), 0);
  });

  test('says so when NATS does not answer, and makes no invitation (exit 1)', async () => {
    const { orgId } = await platform.org();
    // A loopback port nothing listens on: port 1 is reserved and never bound by tests.
    const run = await invite(['--org', orgId, '--email', 'late@example.com', '--role', 'owner'], { NATS_URL: 'nats://127.0.0.1:1' });
    assert.equal(run.status, 1);
    assert.equal(errorOf(run.stderr).code, 'unavailable');
    assert.equal(await invitationsOf(orgId), 0);
  });

  test('refuses a malformed command with exit code 2 and a JSON error', async () => {
    const run = await invite(['--org', 'nope', '--email', 'x@example.com', '--role', 'king']);
    assert.equal(run.status, 2);
    assert.equal(errorOf(run.stderr).code, 'invalid_request');
  });
});

// The invitation link the operator CLI prints names the address the platform is served at: the gateway's
// PORT when PUBLIC_BASE_URL is unset, as `PORT=9090 npm start` serves it (one rule, kit's publicAddress,
// for npm start, the gateway, the services and this CLI). Its own file: each CLI run costs seconds.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Platform, startPlatform } from '@voice/gateway/testing';
import { runAdmin } from './support/admin-cli.js';

let platform: Platform<'console'>;
before(async () => {
  platform = await startPlatform({ services: ['console'] });
});
after(() => platform.close());

test("without PUBLIC_BASE_URL, `PORT=9090 npm run -s admin -- user invite` prints a link on the gateway's port 9090", async () => {
  const { orgId } = await platform.org();
  const { status, stdout, stderr } = await runAdmin(['user', 'invite', '--org', orgId, '--email', 'port@example.com', '--role', 'owner'], {
    ...platform.ctx.env,
    PORT: '9090',
    PUBLIC_BASE_URL: '',
  });
  assert.equal(status, 0, stderr);
  assert.match((JSON.parse(stdout) as { link: string }).link, /^http:\/\/localhost:9090\/dashboard\/invitations\/[A-Za-z0-9_-]{43}$/);
});

// The live stream through the gateway, with telephony's sandbox carrier making real calls: a person's stream
// carries their organization's events as they happen and never another organization's; signed-out, forged
// and expired sessions get no stream; streams are capped per session; shutdown ends them.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type Platform, startPlatform } from '@voice/gateway/testing';
import { eventually } from '@voice/kit/testing';
import { startSession } from '../src/domain/sessions.js';
import { invitePerson, newOrgId, startHarness } from './support/harness.js';
import { type LiveStream, openLiveStream } from './support/live-stream.js';

const phone = (n: number) => `+1415555${String(2000 + n).padStart(4, '0')}`;

describe('the live stream through the gateway', () => {
  let platform: Platform<'telephony' | 'console'>;
  let orgA: { orgId: string; key: string };
  let orgB: { orgId: string; key: string };
  const streams: LiveStream[] = [];

  before(async () => {
    platform = await startPlatform({
      services: ['telephony', 'console'],
      console: { LIVE_HEARTBEAT_MS: '300', LIVE_MAX_STREAMS_PER_SESSION: '2' },
    });
    orgA = await platform.org();
    orgB = await platform.org();
  });
  after(async () => {
    for (const stream of streams) stream.close();
    await platform?.close();
  });

  const cookieOf = (token: string) => `console_session=${token}`;
  async function sessionOf(orgId: string, role: 'owner' | 'member', options: { alsoIn?: string } = {}): Promise<string> {
    const person = await invitePerson(platform.console.deps, orgId, role);
    if (options.alsoIn) await invitePerson(platform.console.deps, options.alsoIn, role, { email: person.email });
    return cookieOf(await startSession(platform.console.deps, person.userId, orgId));
  }
  async function open(cookie: string): Promise<LiveStream> {
    const stream = await openLiveStream(platform.url, cookie);
    streams.push(stream);
    return stream;
  }
  async function queueCall(org: { key: string }, n: number): Promise<string> {
    const response = await fetch(`${platform.url}/api/v1/phone/calls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ to: phone(n), metadata: { sandbox_status: 'completed', sandbox_outcome: 'booked' } }),
    });
    const body = await response.text();
    assert.equal(response.status, 201, body);
    return (JSON.parse(body) as { id: string }).id;
  }
  const of = (stream: LiveStream, id: string) => stream.events.filter((event) => event.resource_id === id);

  test('a call moves from queued to completed on its organization’s streams only; a person in both sees the organization their session chose', async () => {
    const memberOfA = await open(await sessionOf(orgA.orgId, 'member'));
    const ownerOfB = await open(await sessionOf(orgB.orgId, 'owner'));
    // In both organizations, the session on B: A's events are not theirs to see here.
    const inBothOnB = await open(await sessionOf(orgB.orgId, 'member', { alsoIn: orgA.orgId }));

    const headers = memberOfA.response.headers;
    assert.match(String(headers.get('content-type')), /^text\/event-stream/);
    assert.match(String(headers.get('cache-control')), /no-store/);
    assert.match(String(headers.get('content-security-policy')), /script-src 'self'/);
    assert.equal(memberOfA.retry, 3000, 'the reconnect hint comes first');
    // Heartbeats pass the gateway as they are written: it does not buffer the stream.
    await eventually('a heartbeat through the gateway', () => memberOfA.comments.includes('heartbeat'));

    const callA = await queueCall(orgA, 1);
    await memberOfA.waitFor('A’s call to complete on A’s stream', () =>
      of(memberOfA, callA).some((event) => event.type === 'call.completed'),
    );
    assert.deepEqual(
      of(memberOfA, callA).map((event) => [event.type, event.status]),
      [
        ['call.queued', 'queued'],
        ['call.ringing', 'ringing'],
        ['call.started', 'in_progress'],
        ['call.completed', 'completed'],
      ],
    );
    for (const event of memberOfA.events) {
      assert.deepEqual(Object.keys(event).sort(), ['at', 'id', 'resource_id', 'status', 'type'], 'only what a page needs');
      assert.match(event.id, /^evt_/);
    }

    // B's own call reaches B's streams, so their silence about A's call below is not an idle stream's.
    const callB = await queueCall(orgB, 2);
    for (const stream of [ownerOfB, inBothOnB]) {
      await stream.waitFor('B’s call to complete on B’s streams', () => of(stream, callB).some((event) => event.type === 'call.completed'));
    }
    for (const stream of [ownerOfB, inBothOnB]) {
      assert.deepEqual(of(stream, callA), [], 'B’s streams never carry A’s call');
      assert.doesNotMatch(stream.raw(), new RegExp(`${callA}|${orgA.orgId}`));
      assert.ok(
        stream.events.every((event) => event.resource_id === callB),
        'nothing but B’s call',
      );
    }
    assert.deepEqual(of(memberOfA, callB), [], 'A’s stream never carries B’s call');
    // The audit feed (api.called, published by the gateway for these API calls) is no page's business.
    assert.ok(memberOfA.events.every((event) => event.type.startsWith('call.')));
    assert.doesNotMatch(memberOfA.raw(), new RegExp(orgA.orgId));
  });

  test('signed out, a forged cookie or an expired session: the sign-in page, never a stream', async () => {
    const expiredPerson = await invitePerson(platform.console.deps, orgA.orgId, 'owner');
    const expiredToken = await startSession(platform.console.deps, expiredPerson.userId);
    await platform.console.deps.prisma.session.updateMany({
      where: { userId: expiredPerson.userId },
      data: { idleExpiresAt: new Date(Date.now() - 1000) },
    });
    for (const cookie of ['', cookieOf(randomBytes(32).toString('base64url')), cookieOf(expiredToken)]) {
      const response = await fetch(`${platform.url}/dashboard/live`, {
        headers: { cookie, accept: 'text/event-stream' },
        redirect: 'manual',
      });
      assert.equal(response.status, 303, cookie);
      assert.equal(response.headers.get('location'), '/dashboard/sign-in');
      assert.doesNotMatch(String(response.headers.get('content-type')), /event-stream/);
      await response.body?.cancel();
    }
  });

  test('a session has at most LIVE_MAX_STREAMS_PER_SESSION streams; a closed one frees its place', async () => {
    const cookie = await sessionOf(orgA.orgId, 'owner');
    const first = await open(cookie);
    await open(cookie);
    const third = await fetch(`${platform.url}/dashboard/live`, { headers: { cookie }, redirect: 'manual' });
    assert.equal(third.status, 429);
    assert.equal(third.headers.get('retry-after'), '30');
    assert.match(await third.text(), /too many live pages/);
    first.close();
    await eventually('the closed stream’s place to be free', async () => {
      const again = await fetch(`${platform.url}/dashboard/live`, { headers: { cookie }, redirect: 'manual' });
      await again.body?.cancel();
      return again.status === 200;
    });
  });
});

describe('the live stream at shutdown', () => {
  test('closing the console ends its open streams instead of waiting for them', async () => {
    const harness = await startHarness();
    try {
      const person = await invitePerson(harness.deps, newOrgId(), 'member');
      const token = await startSession(harness.deps, person.userId);
      const url = await harness.app.listen({ host: '127.0.0.1', port: 0 });
      const stream = await openLiveStream(url, `console_session=${token}`);
      await harness.app.close();
      await stream.ended;
      assert.deepEqual(stream.events, []);
    } finally {
      // Closes the app (a second close is a no-op), the console's connections, the gateway and the test's data.
      await harness.close();
    }
  });
});

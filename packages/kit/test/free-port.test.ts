// The ports tests choose for servers they start later (kit/testing's freePort): below the system's ephemeral
// range, so no `listen(0)` or outgoing connection of another process can be handed one before it is bound.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { afterEach, describe, test } from 'node:test';
import { freePort } from '../src/testing/index.js';

const ephemeralStart = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
const ownPorts = process.env.TEST_OWN_PORTS;

describe('freePort', () => {
  afterEach(() => {
    if (ownPorts === undefined) delete process.env.TEST_OWN_PORTS;
    else process.env.TEST_OWN_PORTS = ownPorts;
  });

  test('without TEST_OWN_PORTS: a port below the ephemeral range that can be listened on', async () => {
    delete process.env.TEST_OWN_PORTS;
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) assert.ok(port >= 10_000 && port < ephemeralStart, `${port} below ${ephemeralStart}`);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(ports[0], '127.0.0.1', resolve));
    await new Promise((resolve) => server.close(resolve));
  });

  test('with TEST_OWN_PORTS: a port of that range, never one taken', async () => {
    delete process.env.TEST_OWN_PORTS;
    const free = await freePort();
    process.env.TEST_OWN_PORTS = `${free}-${free}`;
    assert.equal(await freePort(), free);
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(free, '127.0.0.1', resolve));
    try {
      await assert.rejects(freePort(), new RegExp(`no free port in TEST_OWN_PORTS=${free}-${free}`));
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

// The READMEs as a newcomer copies them: the quick start's commands run in a real bash and zsh against a
// running stack, every shell block parses in both shells and carries no unquoted pattern character, the
// environment tables name every variable the deployables read, and `npm test`'s pointer leads to a
// section that exists and says what to run.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { type Platform, startPlatform } from '@voice/gateway/testing';
import { assertBackingServices, baseEnvSchema } from '@voice/kit';
import { tracingVariables } from '@voice/kit/tracing';
import { envSchemas } from './support/env-schemas.js';
import { commands, inShell, read, root, section, shellBlocks } from './support/readme.js';

/** The READMEs this test holds to "every command works when copied into bash and zsh". */
const readmes = [
  'README.md',
  'gateway/README.md',
  'services/mcp/README.md',
  'services/webhooks/README.md',
  'services/console/README.md',
  'infra/observability/README.md',
];

/**
 * The characters zsh expands as patterns outside quotes (`?`, `*`, `[`), where no file matches and zsh
 * stops with "no matches found": the text with quoted strings, `$(…)` and comments removed.
 */
function unquotedPatterns(line: string): string[] {
  const bare = line
    .replace(/'[^']*'/g, "''")
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\$\([^)]*\)/g, '')
    .replace(/(^|\s)#.*$/, '');
  return [...bare.matchAll(/[?*[]/g)].map((match) => match[0]);
}

const shells = ['bash', 'zsh'].filter((shell) => spawnSync(shell, ['-c', 'true']).status === 0);

describe('the READMEs, copied into a shell', () => {
  test('bash and zsh are both here (.ci/run installs zsh)', () => {
    assert.deepEqual(shells, ['bash', 'zsh']);
  });

  for (const path of readmes) {
    test(`${path}: every shell block parses in bash and zsh, with no unquoted ? * [`, () => {
      for (const block of shellBlocks(read(path))) {
        for (const shell of shells) {
          const parsed = spawnSync(shell, ['-n', '-c', block], { encoding: 'utf8' });
          assert.equal(parsed.status, 0, `${shell} -n: ${block}\n${parsed.stderr}`);
        }
        for (const line of commands(block)) assert.deepEqual(unquotedPatterns(line), [], `${path}: quote it: ${line}`);
      }
    });
  }

  test('no MCP configuration uses a "transport" key (clients take "type": "http")', () => {
    for (const path of [...readmes, 'services/telephony/README.md', 'services/leads/README.md', 'services/recall/README.md']) {
      if (existsSync(`${root}${path}`)) assert.doesNotMatch(read(path), /"transport"\s*:/, path);
    }
  });

  describe('the quick start, in bash and zsh, against a running gateway', () => {
    let platform: Platform<'telephony' | 'console'>;
    before(async () => {
      platform = await startPlatform({ services: ['telephony', 'console'] });
    });
    after(() => platform?.close());

    for (const shell of ['bash', 'zsh']) {
      test(`${shell}: the organization, the key, the calls list and the invitation, each printing JSON`, async () => {
        const run = section(read('README.md'), 'Run it');
        const [, quickStart, invitation] = shellBlocks(run);
        assert.ok(quickStart && invitation, 'the key block and the invitation block');
        // The README's placeholders, filled as a reader fills them from what the commands before printed.
        const values = { org: '', key: '' };
        const filled = (line: string) =>
          line.replaceAll('org_…', values.org).replaceAll('vk_live_…', values.key).replaceAll('http://localhost:8080', platform.url);
        const env = { ...platform.ctx.env, PUBLIC_BASE_URL: platform.url };
        const [createOrg, createKey, listCalls] = commands(quickStart);
        assert.match(createOrg ?? '', /^npm run -s admin -- org create /);
        const org = JSON.parse(await inShell(shell, filled(createOrg ?? ''), env)) as { id: string };
        values.org = org.id;
        const key = JSON.parse(await inShell(shell, filled(createKey ?? ''), env)) as { key: string };
        values.key = key.key;
        assert.match(listCalls ?? '', /^curl .*\?direction=inbound/);
        const calls = JSON.parse(await inShell(shell, filled(listCalls ?? ''), env)) as { data: unknown[] };
        assert.deepEqual(calls.data, []);
        const [invite] = commands(invitation);
        const invited = JSON.parse(await inShell(shell, filled(invite ?? ''), env)) as { org_id: string; link: string };
        assert.equal(invited.org_id, org.id);
        assert.ok(invited.link.startsWith(`${platform.url}/dashboard/invitations/`), invited.link);
      });
    }
  });
});

describe('the environment tables', () => {
  // What `npm start` reads besides the deployables' variables (each service's port).
  const startVariables = [...read('scripts/start.ts').matchAll(/process\.env\.([A-Z_]+)/g)].map((match) => match[1] as string);
  const variables = new Set([
    ...Object.keys(baseEnvSchema.shape),
    ...Object.values(envSchemas).flatMap((schema) => Object.keys(schema.shape)),
    ...startVariables,
    // Every deployable's tracing (kit's startTracing, before its env schema is read).
    ...tracingVariables,
  ]);
  const documented = new Set([...section(read('README.md'), 'Environment').matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1]));

  test("name every variable the deployables' env schemas and npm start read", () => {
    assert.deepEqual(
      [...variables].filter((name) => !documented.has(name)),
      [],
    );
  });

  test('name no variable that nothing reads', () => {
    assert.deepEqual(
      [...documented].filter((name) => name !== undefined && !variables.has(name)),
      [],
    );
  });
});

describe('npm test with the backing services down', () => {
  test('points to a README section that exists and gives the command for each of them', async () => {
    const closed = {
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/voice',
      REDIS_URL: 'redis://127.0.0.1:1',
      NATS_URL: 'nats://127.0.0.1:1',
      // No Docker engine either (testcontainers finds none at this socket).
      DOCKER_HOST: 'unix:///nonexistent/docker.sock',
    };
    const real = spawnSync(process.execPath, ['scripts/test.mjs', 'infra/test/readme'], {
      cwd: root,
      env: { ...process.env, ...closed },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(real.status, 1, real.stderr);
    const pointer = /README\.md, "([^"]+)"/.exec(real.stderr);
    assert.ok(pointer?.[1], real.stderr);
    const text = section(read('README.md'), pointer[1]);
    // The commands `npm start` prints for each service that does not answer are the ones there.
    const failure = await assertBackingServices(
      { databaseUrl: closed.DATABASE_URL, redisUrl: closed.REDIS_URL, natsUrl: closed.NATS_URL },
      1_000,
    ).then(
      () => assert.fail('the closed ports answered'),
      (error: Error) => error.message,
    );
    const hostCommands = [...failure.matchAll(/on a (?:Debian )?host: (.+)$/gm)].map((match) => match[1] as string);
    assert.equal(hostCommands.length, 3, failure);
    for (const command of hostCommands) assert.ok(text.includes(command), `the section gives: ${command}`);
  });
});

// The README's TypeScript client snippet as a newcomer copies it: saved as try-client.ts in the repository
// and run with the command under it, in bash and zsh, against a running gateway with telephony and leads.
// Its own file: each run of tsx costs seconds.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Platform, startPlatform } from '@voice/gateway/testing';
import { commands, fencedBlocks, inShell, read, root, section, shellBlocks } from './support/readme.js';

let platform: Platform<'telephony' | 'leads'>;
let dir: string;

before(async () => {
  platform = await startPlatform({ services: ['telephony', 'leads'] });
  // Inside the repository, as the README says, so `@voice/client` resolves to the workspace.
  dir = await mkdtemp(join(root, '.readme-client-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
  await platform?.close();
});

for (const shell of ['bash', 'zsh']) {
  // readme.int.test.ts insists on both shells; here a missing one is only not run.
  const skip = spawnSync(shell, ['-c', 'true']).status === 0 ? false : `${shell} is not installed (.ci/run installs zsh)`;
  test(`${shell}: the snippet, saved as try-client.ts and run with the README's command, creates a lead`, { skip }, async () => {
    const text = section(read('README.md'), 'TypeScript client');
    const [snippet] = fencedBlocks(text, ['ts']);
    const [run] = shellBlocks(text).flatMap(commands);
    assert.ok(snippet && run, 'a TypeScript block and the command that runs it');
    assert.match(run, /try-client\.ts/);
    await writeFile(join(dir, 'try-client.ts'), snippet);
    const { key } = await platform.org();
    const printed = await inShell(shell, run.replaceAll('vk_live_…', key), { VOICE_API_URL: platform.url }, dir);
    assert.match(printed, /^lead_\w+$/m);
  });
}

// `npm run bench [-- filter…]`: runs every deployable's bench scripts (<deployable>/bench/*.ts), then those of
// the whole platform (scripts/bench/*.ts: startup), one after another and prints their figures. Targets are stated next to each figure; nothing here asserts timings.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const folders = ['gateway', ...readdirSync(join(root, 'services')).map((name) => join('services', name)), 'scripts'];
const filters = process.argv.slice(2);
const scripts = folders
  .flatMap((folder) => {
    const dir = join(root, folder, 'bench');
    return existsSync(dir)
      ? readdirSync(dir)
          .filter((file) => file.endsWith('.ts'))
          .map((file) => join(dir, file))
      : [];
  })
  // Matched against the path inside the repository, never the checkout's own location.
  .filter((script) => filters.length === 0 || filters.some((filter) => relative(root, script).includes(filter)));

let failed = 0;
for (const script of scripts) {
  console.log(`\n### ${relative(root, script)}`);
  const result = spawnSync(process.execPath, ['--conditions=source', '--import', 'tsx', script], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, LOG_LEVEL: 'silent' },
  });
  if (result.status !== 0) failed++;
}
process.exit(failed > 0 ? 1 : 0);

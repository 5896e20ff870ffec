// CI fails when a committed artifact differs from what the operations' definitions give: a definition
// changed without `npm run generate:api`.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { apiArtifacts } from '../api/artifacts.js';

const root = new URL('../../', import.meta.url);

test('the committed OpenAPI document, client files and tables are generated from the definitions', async () => {
  for (const artifact of await apiArtifacts()) {
    const committed = await readFile(new URL(artifact.file, root), 'utf8').catch(() => '');
    if (committed === artifact.text) continue;
    const committedLines = committed.split('\n');
    const line = artifact.text.split('\n').findIndex((text, index) => text !== committedLines[index]);
    assert.fail(
      `${artifact.file} differs from the definitions (first at line ${line + 1}). Run \`npm run generate:api\` and commit the result.`,
    );
  }
});

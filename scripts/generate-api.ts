// npm run generate:api: writes what is generated from the operations' definitions (scripts/api/artifacts.ts).
// Offline: nothing is started, nothing needs to answer.
import { writeFile } from 'node:fs/promises';
import { apiArtifacts } from './api/artifacts.js';

const root = new URL('../', import.meta.url);
for (const artifact of await apiArtifacts()) {
  await writeFile(new URL(artifact.file, root), artifact.text);
  console.log(`wrote ${artifact.file}`);
}

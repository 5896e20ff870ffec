// What is generated from the operations' definitions, and where it is committed: the public OpenAPI
// document, the typed client's files, and the documents' tables. `npm run generate:api` writes them;
// artifacts.test.ts fails when a committed one differs.
import { readFile } from 'node:fs/promises';
import { buildOpenApiDocument } from '../../gateway/src/routes/openapi.js';
import { renderOperations, renderTypes } from './client-types.js';
import { documentsWithTables, withGeneratedTables } from './tables.js';

const root = new URL('../../', import.meta.url);

export interface Artifact {
  /** From the repository's root. */
  file: string;
  text: string;
}

export async function apiArtifacts(): Promise<Artifact[]> {
  const document = (await buildOpenApiDocument()) as Parameters<typeof renderOperations>[0] & Record<string, unknown>;
  return [
    { file: 'openapi.json', text: `${JSON.stringify(document, null, 2)}\n` },
    { file: 'packages/client/src/schema.ts', text: await renderTypes(document) },
    { file: 'packages/client/src/operations.ts', text: renderOperations(document) },
    ...(await Promise.all(
      documentsWithTables.map(async (file) => ({ file, text: withGeneratedTables(await readFile(new URL(file, root), 'utf8')) })),
    )),
  ];
}

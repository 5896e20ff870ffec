// CI fails when the committed types differ from the OpenAPI document the gateway serves: a route's schema
// or operation changed without `npm run generate:client`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { committedTypes, renderTypes, servedOpenApiDocument } from '../generate/types.js';

test('src/schema.ts is generated from the document the gateway serves', async () => {
  const expected = await renderTypes(await servedOpenApiDocument());
  const committed = await committedTypes();
  if (committed !== expected) {
    const committedLines = committed.split('\n');
    const line = expected.split('\n').findIndex((text, index) => text !== committedLines[index]);
    assert.fail(
      `packages/client/src/schema.ts differs from the OpenAPI document (first at line ${line + 1}). Run \`npm run generate:client\` and commit the result.`,
    );
  }
});

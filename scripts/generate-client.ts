// npm run generate:client: writes packages/client/src/schema.ts, the client's types, from the OpenAPI
// document the gateway serves (the platform is started in this process; Postgres, Redis and NATS must answer).
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { renderTypes, servedOpenApiDocument, typesFile } from '../packages/client/generate/types.js';

const text = await renderTypes(await servedOpenApiDocument());
await writeFile(typesFile, text);
console.log(`wrote ${fileURLToPath(typesFile)}`);

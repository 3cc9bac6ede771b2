#!/usr/bin/env node
// Writes fixtures/openapi.json, the OpenAPI document as the package ships it, from the built schemas
// (run `npm run build` first). test/schemas/openapi.test.ts fails while the file and the schemas differ.
import {writeFileSync} from 'node:fs';
import {fileURLToPath} from 'node:url';

const OUT = fileURLToPath(new URL('../fixtures/openapi.json', import.meta.url));
const {buildOpenApiDocument} = await import('../dist/src/schemas/openapi.js');
writeFileSync(OUT, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
process.stdout.write(`wrote ${OUT}\n`);

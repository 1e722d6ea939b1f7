// `npm run docs:api`: regenerates docs/api.md from the method registry.
import { writeFile } from 'node:fs/promises';
import { API_REFERENCE_PATH, generateApiReference } from './api-reference.js';

await writeFile(API_REFERENCE_PATH, await generateApiReference());
process.stdout.write(`wrote ${API_REFERENCE_PATH}\n`);

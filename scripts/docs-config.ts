// `npm run docs:config`: regenerates docs/config-reference.md from the config schema.
import { writeFile } from 'node:fs/promises';
import { CONFIG_REFERENCE_PATH, generateConfigReference } from './config-reference.js';

await writeFile(CONFIG_REFERENCE_PATH, generateConfigReference());
process.stdout.write(`wrote ${CONFIG_REFERENCE_PATH}\n`);

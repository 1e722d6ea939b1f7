// `npm run docs:events`: regenerates docs/events.md from the event map and the code that emits each event.
import { writeFile } from 'node:fs/promises';
import { EVENTS_REFERENCE_PATH, generateEventsReference } from './events-reference.js';

await writeFile(EVENTS_REFERENCE_PATH, await generateEventsReference());
process.stdout.write(`wrote ${EVENTS_REFERENCE_PATH}\n`);

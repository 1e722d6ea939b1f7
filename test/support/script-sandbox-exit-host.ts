// A stand-in gateway for the sandbox's exit test: starts a script run whose tool call never answers, prints the ids of
// its child processes (the run's child and the pre-started one) once the call arrives, then exits without stopping them.
import { readFileSync } from 'node:fs';
import { runScript } from '../../src/orchestrate/sandbox/index.js';

void runScript({
  script: `await tools.block({}); return 1;`,
  limits: { timeoutMs: 60_000, memoryBytes: 16 * 1024 * 1024, stdoutBytes: 1024, maxToolCalls: 1 },
  callTool: () => {
    const children = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(' ');
    process.stdout.write(`${JSON.stringify(children.map(Number))}\n`, () => process.exit(0));
    return new Promise(() => undefined);
  },
});

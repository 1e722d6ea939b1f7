// The script child's entry: a node process the gateway starts with an empty environment, which loads QuickJS, says
// `ready`, runs the one script the gateway sends over stdin, and forwards its tool calls and stdout as JSON lines.
import { createInterface } from 'node:readline';
import { newQuickJSWASMModuleFromVariant, RELEASE_SYNC } from 'quickjs-emscripten';
import { boundText, parentMessageSchema, type ChildMessage, type RunMessage } from './protocol.js';
import { prepareEngine, type ToolAnswer } from './script-engine.js';

/** Writes one protocol line; `then` runs once it is out (node queues what a full pipe does not take at once). */
function send(message: ChildMessage, then?: () => void): void {
  process.stdout.write(`${JSON.stringify(message)}\n`, then);
}

const pending = new Map<number, (answer: ToolAnswer) => void>();
let nextCallId = 0;
let started = false;

const engine = prepareEngine(await newQuickJSWASMModuleFromVariant(RELEASE_SYNC), {
  callTool(tool, args) {
    const id = nextCallId++;
    return new Promise((resolve) => {
      pending.set(id, resolve);
      send({ type: 'tool_call', id, tool, args });
    });
  },
  writeStdout(text) {
    send({ type: 'stdout', text });
  },
});
// zod compiles a schema's checks at its first parse: done here, while idle, rather than on the run's message.
parentMessageSchema.safeParse({ type: 'tool_result', id: 0, ok: true, json: 'null' });

async function run(message: RunMessage): Promise<void> {
  const outcome = await engine.run(message);
  send({ type: 'done', ...outcome }, () => process.exit(0));
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (line) => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    process.exit(2);
  }
  const message = parentMessageSchema.safeParse(parsed);
  if (!message.success) process.exit(2);
  else if (message.data.type === 'run') {
    if (started) process.exit(2);
    started = true;
    run(message.data).catch((error: unknown) => {
      send({ type: 'done', ending: 'threw', error: boundText(`the sandbox failed: ${String(error)}`) }, () =>
        process.exit(1),
      );
    });
  } else {
    const { id } = message.data;
    const resolve = pending.get(id);
    pending.delete(id);
    resolve?.(message.data.ok ? { ok: true, json: message.data.json } : { ok: false, message: message.data.message });
  }
});
// The gateway closed our stdin: it has gone (or given up on this run), so the run has no one to report to.
lines.on('close', () => process.exit(0));
send({ type: 'ready' });

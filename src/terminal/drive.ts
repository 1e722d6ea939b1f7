// One terminal drive: a shell on a pseudo-terminal, its cleaned output ring, the agent's read cursor and the waits on new output.
import type { IPty } from '@lydell/node-pty';
import { createOutputCleaner } from './output-clean.js';
import { createOutputRing } from './output-ring.js';
import type { DriveInfo, DriveOutput } from './types.js';

/** A read that saw new output returns once the shell has been quiet this long (a command's output comes in bursts). */
export const READ_SETTLE_MS = 50;

export interface Drive {
  readonly info: DriveInfo;
  /** Types `text` into the shell as given. */
  write(text: string): void;
  /** Output since the agent's cursor, moving it; waits up to `waitMs` for output (then its settling) when there is none. */
  read(waitMs: number, maxChars: number): Promise<DriveOutput>;
  /** The newest output; the agent's cursor stays. */
  peek(maxChars: number): DriveOutput;
  /** Kills the shell's process group; resolves once the pty exited (at once when it already had). */
  kill(): Promise<void>;
  /** Wakes every waiting read (the drive ended). */
  wake(): void;
}

export interface DriveDeps {
  info: DriveInfo;
  pty: IPty;
  now: () => number;
  outputBufferChars: () => number;
}

export function createDrive(deps: DriveDeps): Drive {
  const { info, pty, now } = deps;
  const ring = createOutputRing(deps.outputBufferChars);
  const cleaner = createOutputCleaner();
  let cursor = 0;
  let ended = false;
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of [...listeners]) listener();
  };
  let resolveExit: () => void = () => undefined;
  const exited = new Promise<void>((resolve) => {
    resolveExit = resolve;
  });

  pty.onData((chunk) => {
    info.lastOutputAt = now();
    ring.append(cleaner.push(chunk));
    notify();
  });
  pty.onExit(({ exitCode }) => {
    ring.append(cleaner.flush());
    info.state = 'exited';
    info.exitCode = exitCode;
    resolveExit();
    notify();
  });

  const output = (text: string, truncated: boolean, dropped: boolean): DriveOutput => ({
    text,
    truncated,
    dropped,
    state: info.state,
    ...(info.exitCode === undefined ? {} : { exitCode: info.exitCode }),
  });

  function take(maxChars: number): DriveOutput {
    const slice = ring.readFrom(cursor, maxChars);
    cursor = slice.next;
    return output(slice.text, slice.truncated, slice.dropped);
  }

  /** Resolves once output is unread and the shell was quiet READ_SETTLE_MS (or a read's worth waits), the shell exited, the drive ended, or at the deadline. */
  function settled(waitMs: number, maxChars: number): Promise<void> {
    const deadline = now() + waitMs;
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = () => {
        clearTimeout(timer);
        listeners.delete(check);
        resolve();
      };
      function check(): void {
        clearTimeout(timer);
        const left = deadline - now();
        if (ended || info.state === 'exited' || left <= 0) return finish();
        const quietFor = info.lastOutputAt === null ? 0 : now() - info.lastOutputAt;
        if (ring.end > cursor && (quietFor >= READ_SETTLE_MS || ring.end - cursor >= maxChars)) return finish();
        const wait = ring.end > cursor ? Math.min(left, READ_SETTLE_MS - quietFor) : left;
        timer = setTimeout(check, wait);
        timer.unref();
      }
      listeners.add(check);
      check();
    });
  }

  return {
    info,
    write(text) {
      pty.write(text);
    },
    async read(waitMs, maxChars) {
      if (waitMs > 0) await settled(waitMs, maxChars);
      return take(maxChars);
    },
    peek(maxChars) {
      const tail = ring.tail(maxChars);
      return output(tail.text, tail.truncated, tail.dropped);
    },
    async kill() {
      if (info.state === 'open') {
        // node-pty starts the child as a session leader: its pid is the process group of everything it started. Right
        // after the fork the child may not have called setsid yet, so the child itself is killed too.
        for (const target of [-pty.pid, pty.pid]) {
          try {
            process.kill(target, 'SIGKILL');
          } catch {
            // No such group yet, or already gone between the exit and its event.
          }
        }
      }
      await exited;
    },
    wake() {
      ended = true;
      notify();
    },
  };
}

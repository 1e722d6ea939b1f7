// Watches the config file for edits made outside the gateway (an editor, a deploy tool) and reports them, debounced.
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Logger } from 'pino';
import { CONFIG_LIMITS } from './limits.js';

/**
 * Watches the file's directory rather than the file, since editors replace a file by renaming a new one over it.
 * Calls `onEdit` once a burst of events has been quiet for the debounce time. Returns the function that stops it.
 */
export function watchConfigFile(
  path: string,
  onEdit: () => void,
  log: Logger,
  debounceMs = CONFIG_LIMITS.fileWatchDebounceMs,
): () => void {
  const name = basename(path);
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher;
  try {
    watcher = watch(dirname(path), { persistent: false }, (_event, file) => {
      if (file !== null && file !== name) return;
      clearTimeout(timer);
      timer = setTimeout(onEdit, debounceMs);
      timer.unref();
    });
  } catch (error) {
    log.warn({ err: error }, 'the config file cannot be watched: hand edits apply at the next restart');
    return () => {};
  }
  watcher.on('error', (error) =>
    log.warn({ err: error }, 'watching the config file failed: hand edits apply at the next restart'),
  );
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}

// config.history, config.diff and config.gc under storage: postgres, read from the database's revisions; a diff is
// the two revisions' documents as YAML in the unified format `git diff` prints (the diff package's).
import { FILE_HEADERS_ONLY, formatPatch, structuredPatch, type StructuredPatch } from 'diff';
import { stringify } from 'yaml';
import { GatewayError } from '../errors.js';
import type { ConfigHistoryReader } from './config-store-types.js';
import type { ConfigRevision, ConfigRevisionPort } from './database-revision-port.js';
import { CONFIG_LIMITS } from './limits.js';

const COMMIT_REF = /^[0-9a-fA-F]{4,64}$/;
/** Lines of context around each change, as git's default. */
const CONTEXT_LINES = 3;

const linesOf = (text: string): string[] => (text === '' ? [] : text.replace(/\n$/, '').split('\n'));

/** One hunk showing the whole old text removed and the new one added. */
function replacement(oldName: string, newName: string, before: string, after: string): StructuredPatch {
  const removed = linesOf(before);
  const added = linesOf(after);
  return {
    oldFileName: oldName,
    newFileName: newName,
    oldHeader: undefined,
    newHeader: undefined,
    hunks: [
      {
        oldStart: removed.length === 0 ? 0 : 1,
        oldLines: removed.length,
        newStart: added.length === 0 ? 0 : 1,
        newLines: added.length,
        lines: [...removed.map((line) => `-${line}`), ...added.map((line) => `+${line}`)],
      },
    ],
  };
}

/**
 * `--- a/<name>` / `+++ b/<name>` and `@@` hunks with three lines of context; empty when the texts are equal. A
 * change of more lines than CONFIG_LIMITS.diffMaxEditLines shows the whole old text removed and the new one added.
 */
export function unifiedDiff(before: string, after: string, name: string): string {
  if (before === after) return '';
  const oldName = before === '' ? '/dev/null' : `a/${name}`;
  const newName = `b/${name}`;
  const patch =
    structuredPatch(oldName, newName, before, after, undefined, undefined, {
      context: CONTEXT_LINES,
      maxEditLength: CONFIG_LIMITS.diffMaxEditLines,
    }) ?? replacement(oldName, newName, before, after);
  return patch.hunks.length === 0 ? '' : formatPatch(patch, FILE_HEADERS_ONLY);
}

/** The revision `ref` (a sha or a prefix of one) names; invalid_params or not_found otherwise. */
export async function resolveRevision(port: ConfigRevisionPort, ref: string): Promise<ConfigRevision> {
  if (!COMMIT_REF.test(ref))
    throw new GatewayError('invalid_params', `'sha' must be a commit hash (4 to 64 hex digits)`, { param: 'sha' });
  const found = await port.findBySha(ref.toLowerCase());
  const [only] = found;
  if (only === undefined)
    throw new GatewayError('not_found', `Config history has no commit '${ref}'`, { param: 'sha' });
  if (found.length > 1)
    throw new GatewayError('invalid_params', `'${ref}' names more than one config revision; give more digits`, {
      param: 'sha',
    });
  return only;
}

/** `fileName` names the document in diffs, as git names config.yaml. */
export function createDatabaseHistory(port: ConfigRevisionPort, fileName: string): ConfigHistoryReader {
  return {
    async history(limit) {
      const entries = await port.list(Math.max(1, Math.floor(limit)));
      return entries.map((entry) => ({
        sha: entry.sha,
        date: entry.createdAt,
        message: entry.message,
        revision: entry.revision,
        author: entry.author,
      }));
    },
    async diff(ref) {
      const target = ref === undefined ? await port.latest() : await resolveRevision(port, ref);
      if (target === undefined) return '';
      const parent = target.revision > 1 ? await port.get(target.revision - 1) : undefined;
      return unifiedDiff(parent === undefined ? '' : stringify(parent.document), stringify(target.document), fileName);
    },
    async gc() {
      const stats = await port.stats();
      return {
        ok: true,
        commits: stats.revisions,
        packs: 0,
        looseObjects: 0,
        sizeKb: Math.ceil(stats.sizeBytes / 1024),
      };
    },
  };
}

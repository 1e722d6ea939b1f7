// Rewrites the config file in every commit of the history repository (git plumbing, no filter-branch), then
// drops the old objects for good: reflogs expired and `gc --prune=now`, so no object still holds the old text.
import { GatewayError } from '../errors.js';
import type { GitRunner } from './git-runner.js';

export interface HistoryRewriteResult {
  /** Commits reachable from any ref before the rewrite. */
  commits: number;
  /** Commits that got a new object (their file changed, or a parent did). */
  rewritten: number;
}

export interface HistoryRewriteOptions {
  /** The config file's name at the root of each commit's tree. */
  file: string;
  /** The file's new text, given its text in a commit; return it unchanged to keep the commit. */
  transform: (text: string) => string;
  /** Runs after the new commits exist and before any ref moves to them (e.g. to save what they refer to). */
  beforeRefsMove: () => Promise<void>;
}

interface RefEntry {
  name: string;
  sha: string;
  type: string;
}

const HEADER_END = '\n\n';

async function listRefs(git: GitRunner): Promise<RefEntry[]> {
  const out = await git.git(['for-each-ref', '--format=%(refname)%00%(objectname)%00%(objecttype)']);
  return out
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [name = '', sha = '', type = ''] = line.split('\0');
      return { name, sha, type };
    });
}

/** A commit object with a new tree and parents; author, committer, dates and message stay byte for byte. */
function withTreeAndParents(commitText: string, tree: string, parents: readonly string[]): string {
  const split = commitText.indexOf(HEADER_END);
  const header = split === -1 ? commitText : commitText.slice(0, split);
  const message = split === -1 ? '' : commitText.slice(split + HEADER_END.length);
  const kept: string[] = [];
  let isInSignature = false;
  for (const line of header.split('\n')) {
    // A signature (gpgsig and its continuation lines) would no longer match the rewritten commit.
    if (line.startsWith('gpgsig')) {
      isInSignature = true;
      continue;
    }
    if (isInSignature && line.startsWith(' ')) continue;
    isInSignature = false;
    if (!line.startsWith('tree ') && !line.startsWith('parent ')) kept.push(line);
  }
  return `${[`tree ${tree}`, ...parents.map((parent) => `parent ${parent}`), ...kept].join('\n')}${HEADER_END}${message}`;
}

export async function rewriteFileInHistory(
  git: GitRunner,
  { file, transform, beforeRefsMove }: HistoryRewriteOptions,
): Promise<HistoryRewriteResult> {
  const refs = await listRefs(git);
  const commitRefs = refs.filter((ref) => ref.type === 'commit');
  if (commitRefs.length === 0) return { commits: 0, rewritten: 0 };
  const commits = (
    await git.git(['rev-list', '--topo-order', '--reverse', ...new Set(commitRefs.map((ref) => ref.sha))])
  )
    .split('\n')
    .filter((line) => line !== '');

  const newBlobOf = new Map<string, string>();
  const newTreeOf = new Map<string, string>();
  const newCommitOf = new Map<string, string>();

  async function rewriteBlob(blob: string): Promise<string> {
    const known = newBlobOf.get(blob);
    if (known !== undefined) return known;
    const text = await git.git(['cat-file', 'blob', blob]);
    const next = transform(text);
    const rewritten = next === text ? blob : (await git.git(['hash-object', '-w', '--stdin'], next)).trim();
    newBlobOf.set(blob, rewritten);
    return rewritten;
  }

  async function rewriteTree(tree: string): Promise<string> {
    const known = newTreeOf.get(tree);
    if (known !== undefined) return known;
    const entries = (await git.git(['ls-tree', tree])).split('\n').filter((line) => line !== '');
    let isChanged = false;
    const nextEntries: string[] = [];
    for (const entry of entries) {
      // `<mode> <type> <sha>\t<name>`
      const match = /^(\d+) (\w+) ([0-9a-f]+)\t(.*)$/.exec(entry);
      if (match === null || match[2] !== 'blob' || match[4] !== file || match[3] === undefined) {
        nextEntries.push(entry);
        continue;
      }
      const blob = await rewriteBlob(match[3]);
      isChanged ||= blob !== match[3];
      nextEntries.push(`${match[1]} blob ${blob}\t${file}`);
    }
    const rewritten = isChanged ? (await git.git(['mktree'], `${nextEntries.join('\n')}\n`)).trim() : tree;
    newTreeOf.set(tree, rewritten);
    return rewritten;
  }

  let rewritten = 0;
  for (const commit of commits) {
    const text = await git.git(['cat-file', 'commit', commit]);
    const tree = /^tree ([0-9a-f]+)$/m.exec(text)?.[1];
    if (tree === undefined) throw new GatewayError('internal', `config history commit ${commit} has no tree`);
    const parents = [...text.slice(0, Math.max(0, text.indexOf(HEADER_END))).matchAll(/^parent ([0-9a-f]+)$/gm)].map(
      (match) => match[1] ?? '',
    );
    const nextParents = parents.map((parent) => newCommitOf.get(parent) ?? parent);
    const nextTree = await rewriteTree(tree);
    if (nextTree === tree && nextParents.every((parent, index) => parent === parents[index])) {
      newCommitOf.set(commit, commit);
      continue;
    }
    newCommitOf.set(
      commit,
      (
        await git.git(['hash-object', '-t', 'commit', '-w', '--stdin'], withTreeAndParents(text, nextTree, nextParents))
      ).trim(),
    );
    rewritten += 1;
  }
  if (rewritten === 0) return { commits: commits.length, rewritten };

  await beforeRefsMove();
  for (const ref of refs) {
    const next = ref.type === 'commit' ? newCommitOf.get(ref.sha) : undefined;
    // Annotated tags and anything else that is not a rewritten commit would keep the old objects alive.
    if (next === undefined) await git.git(['update-ref', '-d', ref.name, ref.sha]);
    else if (next !== ref.sha) await git.git(['update-ref', ref.name, next, ref.sha]);
  }
  // The index still names the old blob of the file, which would keep it reachable.
  await git.git(['read-tree', 'HEAD']);
  await git.git(['reflog', 'expire', '--expire=now', '--all']);
  await git.git(['gc', '--quiet', '--prune=now']);
  return { commits: commits.length, rewritten };
}

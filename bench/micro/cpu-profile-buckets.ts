// Sums a .cpuprofile's self time into buckets: our source by directory, each npm package, Node internals, GC, idle.
//
//   npx tsx bench/micro/cpu-profile-buckets.ts /tmp/prof/<file>.cpuprofile [--top 25]
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function bucketOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (functionName === '(garbage collector)') return '(gc)';
  if (functionName === '(idle)' || functionName === '(program)') return functionName;
  if (url === '') return `(native) ${functionName || '(anonymous)'}`;
  const modules = url.lastIndexOf('/node_modules/');
  if (modules !== -1) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return `npm ${rest[0]?.startsWith('@') === true ? `${rest[0]}/${rest[1] ?? ''}` : (rest[0] ?? '')}`;
  }
  if (url.startsWith('node:')) return `node ${url.slice('node:'.length).split('/')[0] ?? ''}`;
  const source = /\/(src|test|bench)\/(.*)$/.exec(url);
  if (source !== null) {
    const parts = (source[2] ?? '').split('/');
    return `${source[1] ?? ''}/${parts.length > 1 ? parts[0] : (parts[0] ?? '')}`;
  }
  return url;
}

const path = process.argv[2];
if (path === undefined) throw new Error('usage: cpu-profile-buckets.ts <file.cpuprofile> [--top N]');
const topIndex = process.argv.indexOf('--top');
const top = topIndex === -1 ? 25 : Number(process.argv[topIndex + 1]);
const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const buckets = new Map<string, number>();
const functions = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, index) => {
  const node = byId.get(id);
  const delta = profile.timeDeltas[index] ?? 0;
  if (node === undefined) return;
  total += delta;
  const bucket = bucketOf(node);
  buckets.set(bucket, (buckets.get(bucket) ?? 0) + delta);
  const name = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(/^.*\/(node_modules|src|test|bench)\//, '$1/')}:${node.callFrame.lineNumber + 1}`;
  functions.set(name, (functions.get(name) ?? 0) + delta);
});
const busy = total - (buckets.get('(idle)') ?? 0);
const print = (title: string, entries: Map<string, number>) => {
  console.log(
    `\n${title} (share of non-idle samples, ${(busy / 1000).toFixed(0)} ms busy of ${(total / 1000).toFixed(0)} ms)`,
  );
  for (const [name, micros] of [...entries]
    .filter(([name]) => !name.startsWith('(idle)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)) {
    console.log(`${((micros / busy) * 100).toFixed(1).padStart(5)}%  ${name}`);
  }
};
print('buckets', buckets);
print('functions (self time)', functions);

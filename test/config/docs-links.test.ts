// Every relative link in README.md and docs/ leads to a file that exists, so moving a section never strands a reader.
import { access, readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

async function markdownFiles(): Promise<string[]> {
  const docs = (await readdir(join(ROOT, 'docs'))).filter((name) => name.endsWith('.md'));
  return [join(ROOT, 'README.md'), ...docs.map((name) => join(ROOT, 'docs', name))];
}

describe('documentation links', () => {
  it('every relative link in README.md and docs/*.md resolves to a file', async () => {
    const broken: string[] = [];
    for (const file of await markdownFiles()) {
      const text = await readFile(file, 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
        if (target === undefined || /^[a-z]+:/i.test(target)) continue;
        await access(join(dirname(file), target)).catch(() => broken.push(`${file.slice(ROOT.length)} → ${target}`));
      }
    }
    expect(broken).toEqual([]);
  });

  it('the README stays a five-minute read and points at every guide in docs/', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThan(150);
    const guides = (await readdir(join(ROOT, 'docs'))).filter((name) => name.endsWith('.md'));
    const unlinked = guides.filter((name) => !readme.includes(`docs/${name}`));
    expect(unlinked).toEqual([]);
  });
});

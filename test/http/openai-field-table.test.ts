// docs/openai-compatibility.md lists exactly the fields each /v1 route's request schema takes: none missing, none extra.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { chatCompletionRequest } from '../../src/http/openai/chat-request.js';
import { embeddingsRequest } from '../../src/http/openai/embeddings.js';
import { responsesRequest } from '../../src/http/openai/responses-request.js';

const DOC = fileURLToPath(new URL('../../docs/openai-compatibility.md', import.meta.url));

/** The first-column field names of the table under the `### <heading>` line. */
function tableFields(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`### ${heading}`);
  if (start < 0) throw new Error(`no section ${heading}`);
  const section = markdown.slice(start).split('\n').slice(1);
  const end = section.findIndex((line) => line.startsWith('#'));
  return (end < 0 ? section : section.slice(0, end))
    .map((line) => /^\| `([a-z_]+)` \|/.exec(line)?.[1])
    .filter((field): field is string => field !== undefined);
}

describe('OpenAI compatibility field tables', () => {
  it.each([
    ['`POST /v1/chat/completions`', chatCompletionRequest.shape],
    ['`POST /v1/responses`', responsesRequest.shape],
    ['`POST /v1/embeddings`', embeddingsRequest.shape],
  ])('%s documents every field its schema takes, and only those', async (heading, shape) => {
    const fields = tableFields(await readFile(DOC, 'utf8'), heading);
    expect([...fields].sort()).toEqual(Object.keys(shape).sort());
  });
});

// Reflect's procedures: the deterministic one written without a model, the model's reply parsed strictly, and names.
import { describe, expect, it } from 'vitest';
import {
  deterministicProcedure,
  isProcedureNameTooLong,
  MAX_PROCEDURE_NAME_CHARS,
  missingTools,
  parseSynthesisReply,
} from '../../../src/learning/reflect/index.js';

const reply = {
  name: 'check-weather-forecast',
  description: 'Looks up the forecast and the local time before answering.',
  goal: 'Answer a weather question with the current forecast.',
  steps: ['Call get_weather for the city.', 'Call current_time.', 'Answer from both.'],
  tools: ['get_weather', 'current_time'],
};

describe('reflect procedures', () => {
  it('writes the deterministic procedure from the topic key and the tool sequence', () => {
    const procedure = deterministicProcedure({
      topicKey: 'forecast+weather',
      toolSequence: ['get_weather', 'current_time', 'get_weather'],
      cardinality: 3,
    });
    expect(procedure.name).toBe('forecast-weather-get-weather-current-time');
    expect(procedure.tools).toEqual(['get_weather', 'current_time']);
    expect(procedure.description).toContain('3');
    expect(procedure.body).toContain('## Goal');
    expect(procedure.body).toContain('## Steps');
    expect(procedure.body).toContain('1. Call `get_weather`.');
    expect(procedure.body).toContain('2. Call `current_time`.');
    expect(procedure.body).toContain('3. Call `get_weather`.');
    expect(procedure.body).toContain('## Tools');
    expect(procedure.body).toContain('- `current_time`');
  });

  it('names a procedure with no topic by its tools, in lowercase-hyphen form', () => {
    expect(deterministicProcedure({ topicKey: '', toolSequence: ['Memory_Store'], cardinality: 2 }).name).toBe(
      'memory-store',
    );
  });

  it('keeps a long deterministic name whole, so the length rule can refuse it', () => {
    const long = 'x'.repeat(70);
    const procedure = deterministicProcedure({ topicKey: long, toolSequence: ['current_time'], cardinality: 2 });
    expect(procedure.name.length).toBeGreaterThan(MAX_PROCEDURE_NAME_CHARS);
    expect(isProcedureNameTooLong(procedure.name)).toBe(true);
    expect(isProcedureNameTooLong('a'.repeat(64))).toBe(false);
  });

  it('parses a JSON reply (bare or in one fenced block) into a SKILL.md-style body', () => {
    const procedure = parseSynthesisReply(JSON.stringify(reply));
    expect(procedure).toMatchObject({ name: reply.name, description: reply.description, tools: reply.tools });
    expect(procedure?.body).toContain(reply.goal);
    expect(procedure?.body).toContain('1. Call get_weather for the city.');
    expect(procedure?.body).toContain('- `current_time`');
    expect(parseSynthesisReply(`\`\`\`json\n${JSON.stringify(reply)}\n\`\`\``)?.name).toBe(reply.name);
  });

  it('answers undefined for an empty, unparsable or off-schema reply', () => {
    expect(parseSynthesisReply('')).toBeUndefined();
    expect(parseSynthesisReply('   ')).toBeUndefined();
    expect(parseSynthesisReply('Here is a procedure: first call the weather tool')).toBeUndefined();
    expect(parseSynthesisReply(JSON.stringify({ ...reply, extra: 1 }))).toBeUndefined();
    expect(parseSynthesisReply(JSON.stringify({ ...reply, steps: [] }))).toBeUndefined();
    expect(parseSynthesisReply(JSON.stringify({ ...reply, name: 'Check Weather' }))).toBeUndefined();
    expect(parseSynthesisReply(JSON.stringify([reply]))).toBeUndefined();
  });

  it('parses a well-formed name over 64 characters, for the length rule to count', () => {
    const name = `check-${'w'.repeat(70)}`;
    expect(parseSynthesisReply(JSON.stringify({ ...reply, name }))?.name).toBe(name);
  });

  it('lists the tools a procedure uses that the agent is not given', () => {
    expect(missingTools(['get_weather', 'current_time'], new Set(['current_time', 'get_weather']))).toEqual([]);
    expect(missingTools(['get_weather', 'rm_rf', 'current_time'], new Set(['current_time']))).toEqual([
      'get_weather',
      'rm_rf',
    ]);
  });
});

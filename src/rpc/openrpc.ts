// Builds the OpenRPC document served by rpc.discover from the registry (one source for every method).
import type { MethodRegistry, ResolvedMethodPolicy } from './types.js';
import { z } from 'zod';

export interface OpenRpcMethod {
  name: string;
  summary: string;
  paramStructure: 'by-name';
  params: { name: string; required: boolean; schema: unknown }[];
  result: { name: string; schema: unknown };
  'x-scope': string;
  /** Audit, payload limit and approval requirement as the dispatcher applies them. */
  'x-policy': ResolvedMethodPolicy;
}

export interface OpenRpcDocument {
  openrpc: '1.3.2';
  info: { title: string; version: string };
  methods: OpenRpcMethod[];
}

/** The JSON Schema of a method's params as a client sends them (zod's input side). */
export function paramsJsonSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
}

function describeParams(schema: z.ZodType): OpenRpcMethod['params'] {
  const json = paramsJsonSchema(schema);
  const required = new Set(Array.isArray(json.required) ? json.required.map(String) : []);
  const properties = typeof json.properties === 'object' && json.properties !== null ? json.properties : {};
  return Object.entries(properties).map(([name, propertySchema]) => ({
    name,
    required: required.has(name),
    schema: propertySchema,
  }));
}

export function buildOpenRpcDocument(registry: MethodRegistry, version: string): OpenRpcDocument {
  return {
    openrpc: '1.3.2',
    info: { title: 'Agent Gateway JSON-RPC', version },
    methods: registry.list().map((method) => ({
      name: method.name,
      summary: method.summary,
      paramStructure: 'by-name',
      params: describeParams(method.params),
      result: { name: 'result', schema: {} },
      'x-scope': method.scope,
      'x-policy': method.policy,
    })),
  };
}

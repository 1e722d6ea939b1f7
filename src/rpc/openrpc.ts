// Builds the OpenRPC document served by rpc.discover from the registry (one source for every method).
import { z } from 'zod';
import type { MethodRegistry } from './registry.js';

export interface OpenRpcMethod {
  name: string;
  summary: string;
  paramStructure: 'by-name';
  params: { name: string; required: boolean; schema: unknown }[];
  result: { name: string; schema: unknown };
  'x-scope': string;
}

export interface OpenRpcDocument {
  openrpc: '1.3.2';
  info: { title: string; version: string };
  methods: OpenRpcMethod[];
}

function describeParams(schema: z.ZodType): OpenRpcMethod['params'] {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, unknown>;
    required?: string[];
  };
  const required = new Set(json.required ?? []);
  return Object.entries(json.properties ?? {}).map(([name, propertySchema]) => ({
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
    })),
  };
}

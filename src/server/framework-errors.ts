// Fastify's own router errors (malformed %-encoding in the path, an over-long path parameter) answered in the
// envelope of the surface the URL belongs to, instead of Fastify's `{error, code: "FST_ERR_…"}` body.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError, toGatewayError } from '../errors.js';

/** Sends one error in a surface's envelope (status, headers and body). */
export type ErrorEnvelope = (error: GatewayError, request: FastifyRequest, reply: FastifyReply) => unknown;

interface EnvelopeTable {
  prefixes: { prefix: string; envelope: ErrorEnvelope }[];
  fallback: ErrorEnvelope;
}

const tables = new WeakMap<FastifyInstance, EnvelopeTable>();

/** The router rejects a request before any route or hook sees it: these are what it rejects with. */
function routerError(error: FastifyError): GatewayError {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return new GatewayError('invalid_request', 'The URL path has malformed %-encoding');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new GatewayError('invalid_request', 'A segment of the URL path is too long');
    default:
      return toGatewayError(error);
  }
}

/**
 * The `frameworkErrors` option of the Fastify constructor, bound to the instance once it exists (`attach`).
 * No hook runs for these requests, so the trace id header is set here.
 */
export function createFrameworkErrors(fallback: ErrorEnvelope) {
  const table: EnvelopeTable = { prefixes: [], fallback };
  return {
    attach(app: FastifyInstance): void {
      tables.set(app, table);
    },
    frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
      const mapped = routerError(error);
      reply.header('x-request-id', request.id);
      const path = request.url;
      const owner = table.prefixes.find(({ prefix }) => path === prefix || path.startsWith(`${prefix}/`));
      (owner?.envelope ?? table.fallback)(mapped, request, reply);
    },
  };
}

/** A surface mounted under `prefix` (`/v1`) with an envelope of its own answers router errors in it too. */
export function useErrorEnvelope(app: FastifyInstance, prefix: string, envelope: ErrorEnvelope): void {
  tables.get(app)?.prefixes.push({ prefix, envelope });
}

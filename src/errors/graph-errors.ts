// Errors of execution graphs (src/graphs): refused definitions, template and condition failures, unknown graphs and runs.
import { GatewayError, notFound } from './gateway-error.js';

/** A template or condition that does not parse or names something the definition lacks; `where` quotes it. */
export const graphExpressionInvalid = (where: string, reason: string) =>
  new GatewayError('invalid_params', `Invalid graph expression '${where}': ${reason}`);

/** A path that does not resolve while a run renders a template or evaluates a condition; `path` is the one written. */
export const graphPathMissing = (path: string, reason: string) =>
  new GatewayError('invalid_request', `Graph path ${path}: ${reason}`, { path });

/** A condition operator or function given values it does not take (`'x' < 3`, `length(3)`). */
export const graphOperandInvalid = (operator: string, reason: string) =>
  new GatewayError('invalid_request', `Graph operator ${operator}: ${reason}`, { operator });

/** A template tree, or a value a template reads or yields, nested deeper than its GRAPH_LIMITS cap. */
export const graphValueTooDeep = (what: string, maxDepth: number, limit: string) =>
  new GatewayError('invalid_params', `${what} is nested deeper than ${maxDepth} (GRAPH_LIMITS.${limit})`, {
    maxDepth,
  });

/** A rendered template over GRAPH_LIMITS.maxTemplateOutputChars. */
export const graphTemplateTooLarge = (maxChars: number) =>
  new GatewayError(
    'payload_too_large',
    `A rendered graph template is over ${maxChars} characters (GRAPH_LIMITS.maxTemplateOutputChars)`,
    { maxChars },
  );

/** A definition refused at define time: the first issue's path is the param, every issue is in details. */
export const graphDefinitionInvalid = (issues: readonly { path: string; message: string }[]) => {
  const first = issues[0];
  const message =
    first === undefined ? 'Invalid graph definition' : `Invalid graph definition at ${first.path}: ${first.message}`;
  return new GatewayError('invalid_params', message, {
    ...(first === undefined ? {} : { param: first.path }),
    issues,
  });
};

/** graph.get, graph.run or graph.delete of a name no stored definition has. */
export const graphNotFound = (name: string) => notFound(`Graph '${name}' not found`, { param: 'name' });

/** graph.status, graph.cancel or a resumeFrom of a run id the store lacks (or the caller may not see). */
export const graphRunNotFound = (runId: string, param = 'runId') => notFound(`Graph run ${runId} not found`, { param });

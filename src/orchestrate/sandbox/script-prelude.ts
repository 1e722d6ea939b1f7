// The JavaScript evaluated inside QuickJS before an orchestrate script: it defines `tools` and `console` over the two
// host functions and returns the helpers the child uses, so the host functions themselves stay out of the script's reach.

/**
 * A function expression called with (hostCall, hostLog). hostCall(name, argsJson) returns a promise of the result's
 * JSON text; hostLog(line) writes one stdout line. JSON.stringify and JSON.parse are captured before the script runs,
 * so a script that replaces them changes only what it sees. `tools` is a proxy over a null-prototype object: every
 * string property is a tool function (except `then`, so awaiting `tools` itself does not call a tool), and it cannot
 * be written, extended or re-prototyped. Returns [serialize, describe]: the result's JSON text (undefined when it has
 * none) and a thrown value's one-line description.
 */
export const SCRIPT_PRELUDE = `(function (hostCall, hostLog) {
  'use strict';
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const toText = (value) => {
    if (typeof value === 'string') return value;
    try {
      const text = stringify(value);
      return text === undefined ? String(value) : text;
    } catch {
      try { return String(value); } catch { return '[unprintable]'; }
    }
  };
  const log = (...values) => { hostLog(values.map(toText).join(' ')); };
  const call = (name, args) => {
    let json;
    try {
      json = stringify(args === undefined ? {} : args);
    } catch (error) {
      return Promise.reject(new TypeError('tools.' + name + ': the arguments are not JSON (' + toText(error && error.message) + ')'));
    }
    return hostCall(name, json === undefined ? 'null' : json).then((text) => parse(text));
  };
  const tools = new Proxy(Object.create(null), {
    get(_target, name) {
      if (typeof name !== 'string' || name === 'then') return undefined;
      return (args) => call(name, args);
    },
    set() { return false; },
    defineProperty() { return false; },
    deleteProperty() { return false; },
    setPrototypeOf() { return false; },
  });
  const consoleObject = Object.freeze({ log, error: log, warn: log, info: log, debug: log });
  Object.defineProperty(globalThis, 'tools', { value: tools, enumerable: false, writable: false, configurable: false });
  Object.defineProperty(globalThis, 'console', { value: consoleObject, enumerable: false, writable: false, configurable: false });
  const serialize = (value) => stringify(value);
  const describe = (error) => {
    try {
      if (error instanceof Error) return String(error.name) + ': ' + String(error.message);
      return 'Uncaught ' + toText(error);
    } catch {
      return 'Uncaught a value that could not be described';
    }
  };
  return [serialize, describe];
})`;

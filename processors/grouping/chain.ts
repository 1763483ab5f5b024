// An exception and its causes, outermost (the one raised) first, root cause last.
import type { ExceptionInfo } from '../../src/records/event.js';

export function exceptionChain(exception: ExceptionInfo | undefined): ExceptionInfo[] {
  const chain: ExceptionInfo[] = [];
  for (let e = exception; e !== undefined; e = e.cause) chain.push(e);
  return chain;
}

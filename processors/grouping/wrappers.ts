// Version 3: exceptions that only carry another — .NET's AggregateException (`Task.Wait()`,
// `.Result`) and TargetInvocationException (reflection), Java's InvocationTargetException,
// UndeclaredThrowableException (reflection, proxies), ExecutionException (`Future.get()`) and
// CompletionException (`CompletableFuture.join()`). Whether the real error arrives wrapped depends on
// how it was called (`get()` or `join()`, `Wait()` or `await`, a runner's version), not on the bug:
// grouping reads the inner exception, its frames under the wrapper's (the stack from the top of
// the thread to where the inner one was thrown, as if nothing had wrapped it; see components.ts).
import type { ExceptionInfo } from '../../src/records/event.js';

const WRAPPERS = new Set([
  'System.AggregateException',
  'System.Reflection.TargetInvocationException',
  'java.lang.reflect.InvocationTargetException',
  'java.lang.reflect.UndeclaredThrowableException',
  'java.util.concurrent.ExecutionException',
  'java.util.concurrent.CompletionException',
]);

/** The type's full name: sentry-java sends `ExecutionException` with `module: java.util.concurrent`. */
function fullType(exception: ExceptionInfo): string {
  const module = exception.module;
  return module !== undefined && module !== '' && !exception.type.includes('.') ? `${module}.${exception.type}` : exception.type;
}

export function isWrapper(exception: ExceptionInfo): boolean {
  const type = fullType(exception);
  return WRAPPERS.has(type) || WRAPPERS.has(`System.${type}`) || WRAPPERS.has(`System.Reflection.${type}`);
}

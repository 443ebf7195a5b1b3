import { AsyncLocalStorage } from 'node:async_hooks';
import { InvokeStoreBase } from '@aws/lambda-invoke-store';
import type { Context } from 'aws-lambda';

/**
 * Lambda runs one invocation at a time per environment unless AWS_LAMBDA_MAX_CONCURRENCY says
 * otherwise, so Powertools keeps per-invocation state (the logger's function name, request id and
 * appended keys; the metrics' dimensions) in module scope. The twin runs every function in one
 * process and invocations overlap, so each would log another's name and keys. With that variable
 * set, Powertools keeps the state in Lambda's InvokeStore (`globalThis.awslambda.InvokeStore`),
 * one context per invocation: the twin provides that store, as Lambda's runtime does.
 */
const LAMBDA_MAX_CONCURRENCY_ENV = 'AWS_LAMBDA_MAX_CONCURRENCY';

type StoreContext = Record<string | symbol, unknown>;

/** Lambda's multi-concurrency InvokeStore: a context per invocation, carried by AsyncLocalStorage. */
class LocalInvokeStore extends InvokeStoreBase {
  private readonly storage = new AsyncLocalStorage<StoreContext>();
  private readonly outside: StoreContext = {};
  getContext(): StoreContext | undefined {
    return this.storage.getStore();
  }
  hasContext(): boolean {
    return this.storage.getStore() !== undefined;
  }
  // Outside an invocation (a handler called directly, as the bench and tests do) the state is
  // shared, as in a single-invocation environment, rather than an error.
  get<T = unknown>(key: string | symbol): T | undefined {
    return (this.storage.getStore() ?? this.outside)[key] as T | undefined;
  }
  set<T = unknown>(key: string | symbol, value: T): void {
    if (this.isProtectedKey(key)) throw new Error(`Cannot modify protected Lambda context field: ${String(key)}`);
    (this.storage.getStore() ?? this.outside)[key] = value;
  }
  run<T>(context: StoreContext, fn: () => T): T {
    return this.storage.run(context, fn);
  }
}

const globals = globalThis as { awslambda?: { InvokeStore?: unknown } };
let store: LocalInvokeStore | undefined;

/** Turns the per-invocation store on; before any handler is invoked. */
export const useInvokeStore = (): void => {
  process.env[LAMBDA_MAX_CONCURRENCY_ENV] ||= '64';
  store ??= new LocalInvokeStore();
  // Replaces the single-invocation store the AWS SDK may already have installed (it reads the trace id there).
  globals.awslambda = { ...globals.awslambda, InvokeStore: store };
};

const current = (): LocalInvokeStore => {
  if (!store) throw new Error('useInvokeStore() first');
  return store;
};

/** The twin's own key in an invocation's context: the name of the function invoked. */
const FUNCTION_NAME = Symbol('twin.functionName');

/** The function whose invocation is running here, if any (the twin's call recorder reads it). */
export const currentFunctionName = (): string | undefined => store?.getContext()?.[FUNCTION_NAME] as string | undefined;

/** A handler whose every invocation runs in a context of its own, holding the invocation's request id. */
export const perInvocation =
  <E, R>(handler: (event: E, context: Context) => Promise<R>) =>
  (event: E, context: Context): Promise<R> =>
    current().run(
      { [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: context.awsRequestId, [FUNCTION_NAME]: context.functionName },
      () => handler(event, context),
    );

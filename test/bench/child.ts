import { fork } from 'node:child_process';

/**
 * Runs a bench script in a fresh Node process (the same loader flags as this one) and resolves
 * with the one message it sends back: a measurement of CPU or memory then covers that process
 * alone, not the heap and garbage of earlier sections, nor a store running here.
 */
export const runChild = <T>(file: string, args: string[]): Promise<T> =>
  new Promise((resolve, reject) => {
    // A child is one function's process, one invocation at a time, as Lambda runs it: not the
    // twin's multi-invocation setting that an earlier section left in this process's
    // environment (Powertools would then keep its state in an invocation context there is none of).
    const { AWS_LAMBDA_MAX_CONCURRENCY: _twinOnly, ...env } = process.env;
    const child = fork(file, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env });
    let result: T | undefined;
    child.once('message', (message: T) => {
      result = message;
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      result === undefined
        ? reject(new Error(`${file} ${args.join(' ')} exited (${code}) without a result`))
        : resolve(result),
    );
  });

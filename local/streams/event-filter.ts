import type { DynamoDBRecord } from 'aws-lambda';
import type { StreamFilter, StreamFilterTest } from '#shared/platform/route.js';

/*
 * Lambda's event filtering for the stream twin, as far as the service's filters use it
 * (service/functions.ts): value lists, `exists` and `prefix` at a leaf; several patterns, any one.
 * A record no pattern matches never reaches the function, as on AWS.
 */

const passes = (value: unknown, test: string | StreamFilterTest): boolean => {
  if (typeof test === 'string') return value === test;
  if ('exists' in test) return (value !== undefined) === test.exists;
  return typeof value === 'string' && value.startsWith(test.prefix);
};

const matches = (value: unknown, pattern: StreamFilter): boolean =>
  Object.entries(pattern).every(([field, rule]) => {
    const inner = (value as Record<string, unknown> | undefined)?.[field];
    return Array.isArray(rule)
      ? (rule as readonly (string | StreamFilterTest)[]).some((test) => passes(inner, test))
      : matches(inner, rule as StreamFilter);
  });

/** Whether a record invokes a function with these filters (none: every record). */
export const passesFilters = (record: DynamoDBRecord, filters: readonly StreamFilter[] | undefined): boolean =>
  !filters || filters.length === 0 || filters.some((pattern) => matches(record, pattern));

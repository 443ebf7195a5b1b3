import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import type { Scope } from '#shared/api/scopes.js';
import { once } from '#shared/platform/once.js';
import type { QueueName, Route } from '#shared/platform/route.js';

/*
 * What the engine decides of a kind's routes (shared/<kind>/routes/): what they are asked and
 * answer of a job, and what their functions touch, which is what startJob (start.ts) and
 * getJobView (view.ts) do. The kind's route files add their operation id, path and message, the
 * request that starts a job and the schema of its view.
 */

interface RouteNaming<Op extends string> {
  operationId: Op;
  path: string;
  message: string;
}

/**
 * A start route: answers the job's id, `{"<idAttribute>": id}`, and takes an `Idempotency-Key`
 * (idempotency.ts, kept in the same table). Its function reads the subjects' locks and their
 * jobs, records, locks, fails and releases, then queues on the kind's queue.
 */
export const jobStartRoute = <Op extends string, Req extends z.core.$ZodType, Id extends string>(
  { idAttribute, queue }: { idAttribute: Id; queue: QueueName },
  route: RouteNaming<Op> & { request: Req; scope: Scope },
) =>
  ({
    ...route,
    idempotencyKey: true as const,
    result: once(() => z.strictObject({ [idAttribute]: z.string() } as Record<Id, z.ZodMiniString>)),
    function: {
      tables: { migrations: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] },
      queues: { [queue]: ['SendMessage'] },
    },
  }) satisfies Route;

type Identifier = ReturnType<typeof identifier>;

/**
 * A status route: asked `{organizationId, "<idAttribute>": id}`, it answers the kind's view
 * (`result`). Its function reads the one record.
 */
export const jobStatusRoute = <Op extends string, Res extends z.core.$ZodType, Id extends string>(
  { idAttribute }: { idAttribute: Id },
  route: RouteNaming<Op> & { result: () => Res },
) =>
  ({
    ...route,
    // Reading a job's status is reading (docs/api.md, Scopes).
    scope: 'read' as const,
    request: z.strictObject({
      organizationId: identifier('organizationId'),
      [idAttribute]: identifier(idAttribute),
    } as { organizationId: Identifier } & Record<Id, Identifier>),
    function: { tables: { migrations: ['GetItem'] } },
  }) satisfies Route;

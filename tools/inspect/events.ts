import { readFile } from 'node:fs/promises';
import { rotatedPath } from '#local/events/events-file.js';
import { printable } from '../cli/output.js';

/**
 * The latest events the service published, from the data directory's events.jsonl (and the
 * rotated events.1.jsonl before it when that is needed to show enough), newest last. Lines that
 * are not an event's JSON are counted, not shown.
 */

interface EventLine {
  'detail-type': string;
  detail: Record<string, unknown>;
}

const readLines = async (file: string): Promise<string[] | undefined> => {
  try {
    return (await readFile(file, 'utf8')).split('\n').filter((line) => line.trim());
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
};

const parse = (line: string): EventLine | undefined => {
  try {
    const event = JSON.parse(line) as Partial<EventLine>;
    if (typeof event['detail-type'] !== 'string' || typeof event.detail !== 'object' || event.detail === null) {
      return undefined;
    }
    return event as EventLine;
  } catch {
    return undefined;
  }
};

export const inspectEvents = async (
  eventsFile: string,
  organizationId: string | undefined,
  limit: number,
): Promise<string[]> => {
  const current = await readLines(eventsFile);
  if (current === undefined) return [printable(`Events: none yet (no ${eventsFile})`)];
  const wanted = (event: EventLine) => organizationId === undefined || event.detail.organizationId === organizationId;
  let unreadable = 0;
  const events = (lines: string[]) =>
    lines.flatMap((line) => {
      const event = parse(line);
      if (!event) unreadable++;
      return event && wanted(event) ? [event] : [];
    });
  let found = events(current);
  if (limit === 0 || found.length < limit)
    found = [...events((await readLines(rotatedPath(eventsFile))) ?? []), ...found];
  const shown = limit > 0 ? found.slice(-limit) : found;
  const whose = organizationId === undefined ? '' : `, organization ${JSON.stringify(organizationId)}`;
  return [
    printable(`Events (${eventsFile}${whose}): the last ${shown.length} of ${found.length}, newest last`),
    ...shown.map((event) => {
      const { id: _id, ...detail } = event.detail;
      return printable(`  ${event['detail-type']}  ${JSON.stringify(detail)}`);
    }),
    ...(unreadable ? [`  (${unreadable} line(s) that are not an event's JSON left out)`] : []),
  ];
};

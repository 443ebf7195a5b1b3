import { appendFile } from 'node:fs/promises';
import type { BusEvent, EventBus } from './events.js';

/** An event as one line of the local events file: EventBridge's names for its fields. */
export const eventLine = (event: BusEvent): string =>
  JSON.stringify({ 'detail-type': event.detailType, source: event.source, detail: event.detail });

/**
 * The local twin of the event bus: each event appended as one JSON line to a file (the data
 * directory's events.jsonl) and, given `print`, announced in one line. No file (in memory): print only.
 */
export class FileEventBus implements EventBus {
  constructor(
    readonly file: string | undefined,
    private readonly print?: (line: string) => void,
  ) {}

  async publish(events: readonly BusEvent[]): Promise<void> {
    if (events.length === 0) return;
    if (this.file) await appendFile(this.file, events.map((event) => `${eventLine(event)}\n`).join(''));
    for (const event of events) this.print?.(`event  ${event.detailType}  ${event.detail.id}`);
  }
}

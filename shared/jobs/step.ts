/*
 * A kind's own work in a consumer run (docs/design.md, The job engine): the engine (run.ts,
 * pages.ts) holds the lease, numbers the pages, saves each page's progress under the lease,
 * continues near the deadline and completes or fails the job; the step reads, decides and
 * writes one page at a time.
 */

/** Per run, the last page whose progress was saved: the record's `runs`, then this run's saves. */
export type SavedPages = Readonly<Record<string, number>>;

/** The run and page a kind stamps on what a page wrote (a migration's copy, an erasure's stamped entry). */
export interface PageMarker {
  run: string;
  page: number;
}

/**
 * Exactly-once counting: what a page wrote is counted once that page's progress is saved. A
 * marker of a saved page is counted already (a rerun keeps it and counts nothing); any other is
 * not (its run died before the save), and the page that meets it again counts it with its own.
 */
export const isCounted = (saved: SavedPages, marker: PageMarker): boolean => (saved[marker.run] ?? 0) >= marker.page;

/** What a step sees of the run it works in. */
export interface RunningJob<R> {
  /** The record as the lease returned it, at the start of the run. */
  record: R;
  /** This run's id: the lease owner, and the `run` of its markers. */
  run: string;
  /** Kept up to date by the engine as it saves pages. */
  savedPages: SavedPages;
  now: () => Date;
}

export type PageResult =
  /** Nothing left to do: the job completes. */
  | { outcome: 'done' }
  /**
   * The job cannot go on (an import's file that cannot be read on): this page's counts and
   * fields are saved, then the job is failed with `reason`.
   */
  | {
      outcome: 'failed';
      reason: string;
      counts: Readonly<Record<string, number>>;
      fields?: Readonly<Record<string, unknown>>;
    }
  /** This read found nothing to write; the next call reads on (no page counted, nothing saved). */
  | { outcome: 'empty' }
  /**
   * A page written: its counts (added to the kind's counters) and page fields are saved under
   * the lease, then `saved` runs (what may only happen once the progress is safe: the deletes).
   */
  | {
      outcome: 'page';
      counts: Readonly<Record<string, number>>;
      fields?: Readonly<Record<string, unknown>>;
      saved?: () => Promise<void>;
    };

/**
 * A kind's step: for one run, the function that does the next page, numbered `page` (the number
 * its progress is saved under and its markers carry). It may keep state between the calls of one
 * run (a cursor, a checkpoint); an error fails the run (retried by the queue, failed on its last
 * attempt).
 */
export type JobStep<R, D> = (deps: D, job: RunningJob<R>) => (page: number) => Promise<PageResult>;

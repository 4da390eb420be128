// The contract between `bench/run.ts` and each benchmark section. A section is a module whose default
// export is a `Section`; the driver loads it only when it runs, so one section's imports (peer
// libraries, the AWS SDK) never weigh on another's measurements.

/** One row of a section's results. JSON output prints rows as they are; the table uses `columns`. */
export type Row = Record<string, unknown>;

export interface Column<R extends Row = Row> {
  header: string;
  /** The cell text for the table. May contain newlines. */
  cell: (row: R) => string;
  align?: 'left' | 'right';
}

export interface SectionResult<R extends Row = Row> {
  columns: Column<R>[];
  rows: R[];
  /** Printed under the table (and included in JSON): method, caveats, what was not measured. */
  notes?: string[];
}

export interface SectionContext {
  /** `--quick`: fewer and shorter rounds. For checking the bench works, not for numbers. */
  readonly quick: boolean;
  /** Progress for a human; goes to stderr so `--json` output stays parseable. */
  log(message: string): void;
}

export interface Section<R extends Row = Row> {
  readonly name: string;
  readonly title: string;
  run(context: SectionContext): Promise<SectionResult<R>>;
}

/** A section with typed rows, as the driver sees it (it only prints and serializes rows). */
export function defineSection<R extends Row>(section: Section<R>): Section {
  return section as unknown as Section;
}

/**
 * Thrown by a section that cannot produce honest numbers (a verification failed, a dependency is
 * missing). The driver reports the message, marks the run failed and goes on with the next section.
 */
export class SectionAbort extends Error {
  override readonly name = 'SectionAbort';
}

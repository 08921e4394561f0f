import { systemClock, type Clock } from './clock.js';
import { Directory } from './directory/directory.js';
import { openDatabase, type Db } from './storage/database.js';

export interface EngineOptions {
  /** Folder of the embedded store, or `:memory:`. */
  readonly dataDir: string;
  readonly clock?: Clock;
}

/** The database itself: a plain library, no transport, no environment. */
export interface Engine {
  readonly db: Db;
  readonly directory: Directory;
  readonly clock: Clock;
  /** True while the store answers queries. */
  isHealthy(): boolean;
  close(): void;
}

/**
 * Opens the engine on a data folder.
 *
 * @example const engine = openEngine({ dataDir: './data' }); engine.close();
 */
export function openEngine(options: EngineOptions): Engine {
  const clock = options.clock ?? systemClock;
  const db = openDatabase({ dataDir: options.dataDir });
  const directory = new Directory(db, clock);
  return {
    db,
    directory,
    clock,
    isHealthy: () => {
      try {
        return db.open && db.prepare('SELECT 1 AS ok').get() !== undefined;
      } catch {
        return false;
      }
    },
    close: () => {
      if (db.open) db.close();
    },
  };
}

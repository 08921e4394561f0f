import type { Statement } from 'better-sqlite3';
import type { Db } from './database.js';

/** Prepared statements compiled once per SQL text: preparing costs more than running a small statement. */
export class StatementCache {
  readonly #db: Db;
  readonly #statements = new Map<string, Statement>();

  constructor(db: Db) {
    this.#db = db;
  }

  get(sql: string): Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }
}

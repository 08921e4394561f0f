import type { LoadedDocument } from './hit.js';

import type { FullRow, HeavyRow, LightRow } from '../access/search-rows.js';

export type { FullRow, HeavyRow, LightRow };

/**
 * A candidate document. What is not given when it is made is read on first use — its content and stored fields
 * (the large part of a row, and a JSON parse), or the whole row for a candidate known only by its seq: most
 * candidates are ranked and dropped without them; only filters and the results shown need them.
 */
export class CandidateDocument implements LoadedDocument {
  readonly seq: number;
  readonly #read: (seq: number) => FullRow | undefined;
  #light: LightRow | undefined;
  #content: string | undefined;
  #fields: LoadedDocument['fields'] | undefined;
  #missing = false;

  constructor(seq: number, read: (seq: number) => FullRow | undefined, light?: LightRow, heavy?: HeavyRow) {
    this.seq = seq;
    this.#read = read;
    this.#light = light;
    if (heavy) this.#setHeavy(heavy);
  }

  get id(): string {
    return this.#row()[1];
  }
  get title(): string {
    return this.#row()[2];
  }
  get primary_table(): string {
    return this.#row()[3];
  }
  get visibility(): string {
    return this.#row()[4];
  }
  get created_at(): number {
    return this.#row()[5];
  }
  get updated_at(): number {
    return this.#row()[6];
  }
  get parent_doc_id(): string | null {
    return this.#row()[7];
  }
  get cluster(): number | null {
    return this.#row()[8];
  }
  get lat(): number | null {
    return this.#row()[9];
  }
  get lon(): number | null {
    return this.#row()[10];
  }
  get model(): string | null {
    return this.#row()[11];
  }

  /** Whether the row was deleted permanently after the search read its seq (reads it if need be). */
  get missing(): boolean {
    this.#row();
    return this.#missing;
  }

  get content(): string {
    if (this.#content === undefined) this.#readAll();
    return this.#content!;
  }

  get fields(): LoadedDocument['fields'] {
    if (this.#fields === undefined) this.#readAll();
    return this.#fields!;
  }

  #row(): LightRow {
    if (!this.#light) this.#readAll();
    return this.#light!;
  }

  /** Whether the stored fields are in memory (filters read them). */
  get hasFields(): boolean {
    return this.#fields !== undefined;
  }

  /** Takes the stored fields, read by the caller with other candidates' (the content stays lazy). */
  setFields(json: string): void {
    this.#fields ??= JSON.parse(json) as LoadedDocument['fields'];
  }

  /** Whether the content and fields are in memory (else the first use reads the row). */
  get complete(): boolean {
    return this.#content !== undefined;
  }

  #readAll(): void {
    this.fill(this.#read(this.seq));
  }

  /** Takes the document's whole row, read by the caller (several at once); undefined: it no longer exists. */
  fill(row: FullRow | undefined): void {
    this.#missing = !row;
    this.#light ??= row
      ? (row.slice(0, 12) as LightRow)
      : [this.seq, '', '', '', 'private', 0, 0, null, null, null, null, null];
    this.#setHeavy(row ? (row.slice(12) as HeavyRow) : undefined);
  }

  #setHeavy(heavy: HeavyRow | undefined): void {
    this.#content = heavy?.[0] ?? '';
    this.#fields = heavy ? (JSON.parse(heavy[1]) as LoadedDocument['fields']) : {};
  }
}

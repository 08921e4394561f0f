import type { Index } from 'usearch';
import { createError } from '@godb/contract';
import type { SpaceSettings } from '../../collections/vector-space.js';
import type { Candidates } from '../../vectors/index-search.js';
import { searchAlone } from '../../vectors/search-batches.js';
import type { SearchView } from '../../vectors/search-views.js';
import { newIndex } from '../../vectors/usearch-index.js';
import { defaultVectorIndexOptions } from '../../vectors/vector-index-options.js';
import type { VectorReader } from '../vector-reader.js';

/** A mapped view and the space it belongs to. */
interface Mapped {
  readonly serial: number;
  readonly index: Index;
}

/**
 * A search worker's vector indexes: the saved files the main thread published as exactly its graphs
 * (vectors/search-views.ts), memory-mapped (usearch `view()`: the pages are the page cache's, shared by every
 * worker), one per space, replaced when the main thread publishes a newer one. It answers only the task it is set
 * to (`use`): that view holds the whole space (the main thread's tail was empty), so there is no tail to search and
 * no float32 copies (candidates are rescored from the store, as the main thread does without copies).
 */
export class ViewedIndexes implements VectorReader {
  readonly #mapped = new Map<string, Mapped>();
  #current: { space: string; view: Omit<SearchView, 'index'>; settings: SpaceSettings; index: Index } | undefined;

  /** Sets the space and view the next search reads; throws when the view's file cannot be mapped. */
  use(tenantId: string, space: string, view: Omit<SearchView, 'index'>, settings: SpaceSettings): void {
    const key = JSON.stringify([tenantId, space]);
    let mapped = this.#mapped.get(key);
    if (mapped?.serial !== view.serial) {
      const index = newIndex(settings, defaultVectorIndexOptions, view.dims);
      index.view(view.path);
      mapped = { serial: view.serial, index };
      this.#mapped.set(key, mapped);
    }
    this.#current = { space: key, view, settings, index: mapped.index };
  }

  #of(tenantId: string, space: string) {
    const current = this.#current;
    if (!current || current.space !== JSON.stringify([tenantId, space]))
      throw createError(
        'INTERNAL',
        {},
        { details: { reason: 'a search worker was asked for a space it was not given' } },
      );
    return current;
  }

  ready(): Promise<void> {
    return Promise.resolve();
  }

  size(tenantId: string, space: string): number {
    return this.#of(tenantId, space).view.size;
  }

  search(
    tenantId: string,
    space: string,
    _dims: number,
    query: Float32Array,
    k: number,
    docs?: ReadonlySet<number>,
  ): Promise<Candidates> {
    // The pool sends only unrestricted searches: a filtered one needs the main thread's allowed sets and copies.
    if (docs)
      return Promise.reject(createError('INTERNAL', {}, { details: { reason: 'filtered search in a worker' } }));
    try {
      return Promise.resolve(searchAlone(this.#of(tenantId, space).index, query, k));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  exactVectors(): null {
    return null;
  }

  settings(tenantId: string, space: string): SpaceSettings {
    return this.#of(tenantId, space).settings;
  }
}

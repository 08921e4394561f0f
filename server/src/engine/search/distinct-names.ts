import { createError } from '@godb/contract';

/**
 * The names of a list, each once, in their first order; a 400 naming `field` when more than `max` differ. Lists of
 * names (tables, facets) cost what their distinct names cost, however often a name repeats.
 *
 * @example distinctNames(['a', 'b', 'a'], 64, 'body.facets', 'facets') // ['a', 'b']
 */
export function distinctNames(names: readonly string[], max: number, field: string, noun: string): string[] {
  const distinct = [...new Set(names)];
  if (distinct.length > max) {
    throw createError(
      'VALIDATION_FAILED',
      { detail: `${field} may name at most ${max} different ${noun} (it names ${distinct.length})` },
      { field },
    );
  }
  return distinct;
}

import { createError, type groupListModes } from '@godb/contract';

export type GroupListMode = (typeof groupListModes)[number];

/** One group: its value (as text) and its members' keys, best first. */
export interface Group {
  readonly value: string;
  readonly keys: number[];
}

/** Fields that always hold a list: grouping by them must say how (group_by.list). */
export const listFields = new Set(['tags', 'categories', 'access_list']);

/** A group value as text: strings as they are, other values as JSON. */
const textOf = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * Groups ranked candidates by a field: groups in the order of their best member, each holding its best `size`
 * members in rank order, at most `limit` groups after skipping `offset`. A group is never split or repeated: every
 * member of a value is in its one group. A candidate without the field joins no group. A list value joins a group per
 * value (`each`) or by its first (`first`); without a mode it is refused, naming the field.
 *
 * @example groupBy(ranked, (key) => docs.get(key)?.fields.metadata?.author, { size: 2, limit: 10, offset: 0 })
 */
export function groupBy(
  keys: readonly number[],
  valueOf: (key: number) => unknown,
  options: { size: number; limit: number; offset: number; list?: GroupListMode | undefined; field: string },
): Group[] {
  const groups = new Map<string, Group>();
  for (const key of keys) {
    const raw = valueOf(key);
    if (raw === undefined || raw === null) continue;
    let values: unknown[];
    if (Array.isArray(raw)) {
      if (!options.list) throw listRefused(options.field);
      values = options.list === 'first' ? raw.slice(0, 1) : [...new Set(raw.map(textOf))];
    } else values = [raw];
    for (const value of values) {
      const text = textOf(value);
      let group = groups.get(text);
      if (!group) {
        group = { value: text, keys: [] };
        groups.set(text, group);
      }
      if (group.keys.length < options.size) group.keys.push(key);
    }
  }
  return [...groups.values()].slice(options.offset, options.offset + options.limit);
}

/** The 400 for grouping by a list-valued field without group_by.list. */
export const listRefused = (field: string) =>
  createError(
    'VALIDATION_FAILED',
    {
      detail: `body.group_by.field ${field} holds a list: say how to group it with body.group_by.list, each (a document joins a group per value) or first (by its first value).`,
    },
    { field: 'body.group_by.list' },
  );

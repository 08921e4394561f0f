import { createError, type decayFunctions } from '@godb/contract';
import { fieldValue } from '../filters.js';
import { haversineKm, pointOf } from '../geo.js';
import type { LoadedDocument } from '../hit.js';
import { pointOfDocument } from '../scope.js';

export type DecayFunction = (typeof decayFunctions)[number];

export interface DecaySpec {
  readonly function: DecayFunction;
  readonly field: string;
  readonly origin?: unknown;
  readonly scale: number;
  readonly offset?: number | undefined;
  readonly decay?: number | undefined;
}

export interface FormulaSpec {
  readonly terms: readonly {
    readonly weight?: number | undefined;
    readonly value?: string | undefined;
    readonly default?: number | undefined;
    readonly decay?: DecaySpec | undefined;
  }[];
  readonly multipliers?: readonly { readonly field: string; readonly default?: number | undefined }[] | undefined;
}

/** A compiled formula: a document's new score from its score so far. */
export type Formula = (score: number, doc: LoadedDocument) => number;

/**
 * The decay of a distance x from the origin, past `offset`, each function equal to `decay` at x = scale (the
 * definitions of Elasticsearch's decay functions): exp decay^(x/scale), gauss decay^((x/scale)²), linear
 * max(0, 1 − (1 − decay)·x/scale).
 */
export function decayOf(fn: DecayFunction, distance: number, scale: number, offset: number, decay: number): number {
  const x = Math.max(0, Math.abs(distance) - offset) / scale;
  if (fn === 'exp') return decay ** x;
  if (fn === 'gauss') return decay ** (x * x);
  return Math.max(0, 1 - (1 - decay) * x);
}

/** A date as Unix seconds: a number is seconds, a string an ISO 8601 date; anything else is no date. */
export function secondsOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms / 1000 : undefined;
}

const numberOf = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : typeof value === 'boolean' ? Number(value) : undefined;

const invalid = (field: string, detail: string) => createError('VALIDATION_FAILED', { detail }, { field });

/** The field a formula reads; `metadata.x`, `engagement.x` or a top-level field, checked against typos. */
function fieldName(field: string, path: string): string {
  if (/^(metadata|engagement)\.[^.]+(\.[^.]+)*$/.test(field)) return field;
  if (['created_at', 'updated_at', 'cluster', 'location'].includes(field)) return field;
  throw invalid(
    path,
    `${path} is ${JSON.stringify(field)}: expected $score (terms only), created_at, updated_at, cluster, metadata.<key> or engagement.<key>.`,
  );
}

function compileDecay(spec: DecaySpec, path: string, now: number): (doc: LoadedDocument) => number {
  const offset = spec.offset ?? 0;
  const decay = spec.decay ?? 0.5;
  const field = fieldName(spec.field, `${path}.field`);
  const origin = spec.origin;
  if (typeof origin === 'object' && origin !== null) {
    const point = pointOf(origin);
    if (!point) throw invalid(`${path}.origin`, `${path}.origin must be a point {lat, lon} or a date.`);
    // A document without a point is as far as can be: its decay is that of the farthest distance (0 for linear).
    return (doc) => {
      const at = pointOfDocument(doc, field);
      return at
        ? decayOf(spec.function, haversineKm(point[0], point[1], at[0], at[1]), spec.scale, offset, decay)
        : decayOf(spec.function, Number.MAX_VALUE, spec.scale, offset, decay);
    };
  }
  const from = origin === undefined ? now : secondsOf(origin);
  if (from === undefined)
    throw invalid(`${path}.origin`, `${path}.origin must be Unix seconds, an ISO 8601 date or a point {lat, lon}.`);
  if (field === 'location')
    throw invalid(`${path}.origin`, `${path}.origin must be a point {lat, lon} to decay by the distance from it.`);
  return (doc) => {
    const at = secondsOf(fieldValue(doc, field));
    return at === undefined ? 0 : decayOf(spec.function, at - from, spec.scale, offset, decay);
  };
}

/**
 * Compiles a formula: score = (Σ weight × term) × Π multipliers, a term being $score, a numeric field (its default,
 * 0 unless given, when a document lacks it) or a decay; a multiplier a numeric field (default 1). `now` is the
 * origin of a date decay that gives none (Unix seconds).
 *
 * @example compileFormula({ terms: [{ value: '$score' }, { weight: 0.1, value: 'metadata.stars' }] }, 'body.formula', now)
 */
export function compileFormula(spec: FormulaSpec, path: string, now: number): Formula {
  const terms = spec.terms.map((term, i) => {
    const at = `${path}.terms[${i}]`;
    const weight = term.weight ?? 1;
    if ((term.value === undefined) === (term.decay === undefined))
      throw invalid(at, `${at} needs exactly one of value ($score or a field) and decay.`);
    if (term.decay) {
      const decay = compileDecay(term.decay, `${at}.decay`, now);
      return (_score: number, doc: LoadedDocument) => weight * decay(doc);
    }
    if (term.value === '$score') return (score: number) => weight * score;
    const field = fieldName(term.value!, `${at}.value`);
    const fallback = term.default ?? 0;
    return (_score: number, doc: LoadedDocument) => weight * (numberOf(fieldValue(doc, field)) ?? fallback);
  });
  const multipliers = (spec.multipliers ?? []).map((m, i) => {
    const field = fieldName(m.field, `${path}.multipliers[${i}].field`);
    const fallback = m.default ?? 1;
    return (doc: LoadedDocument) => numberOf(fieldValue(doc, field)) ?? fallback;
  });
  return (score, doc) => {
    let sum = 0;
    for (const term of terms) sum += term(score, doc);
    for (const multiply of multipliers) sum *= multiply(doc);
    return sum;
  };
}

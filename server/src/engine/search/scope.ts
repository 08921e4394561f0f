import type { Viewer } from '../documents/types.js';
import { fieldValue, matchesFilters, type FilterGroup } from './filters.js';
import { haversineKm, pointOf } from './geo.js';
import type { LoadedDocument } from './hit.js';

export interface GeoFilter {
  readonly lat: number;
  readonly lon: number;
  readonly radiusKm: number;
  /** `location`, or a metadata key holding a point ("lat,lon", [lat, lon] or {lat, lon}). */
  readonly field: string;
}

/**
 * Cluster mode: whether a node's part of a fanned-out search counts a document (in the shards asked of it, or, for
 * the asking node's part of a search of the whole tenant, in no partitioned collection).
 */
export type CountedDocument = (doc: { readonly id: string; readonly primary_table: string }) => boolean;

/**
 * Cluster mode: the round of a fanned-out search a node answers (what each means: PartitionRun.phase). One list for
 * the fan-out that sends it, the round it travels in and the run that answers it.
 */
export type SearchPhase =
  'stats' | 'sides' | 'expand' | 'tally' | 'count' | 'nodes' | 'features' | 'seeds' | 'scores' | 'ranked' | 'readable';

/** Restrictions every search kind applies after access control. */
export interface Scope {
  readonly viewer: Viewer;
  readonly now: number;
  readonly table?: string | undefined;
  readonly filters?: FilterGroup | undefined;
  readonly geo?: GeoFilter | undefined;
  /** Only documents that have a location (text search's require_geo). */
  readonly requireGeo?: boolean;
  /**
   * Cluster mode, a node's part of a search of a partitioned collection: `total_hits` counts only the documents of
   * the shards asked of it, so the asking node sums the parts (its answers still hold every document it has).
   */
  readonly counted?: CountedDocument | undefined;
}

/** Whether a search must read its candidates' rows to decide (filters, a geo restriction), not only rank them. */
export const scopeReadsRows = (scope: Scope): boolean =>
  scope.filters !== undefined || scope.geo !== undefined || Boolean(scope.requireGeo);

/** Applies filters and the geo restriction; answers the distance (km) when there is a geo restriction. */
export function acceptInScope(doc: LoadedDocument, scope: Scope): { ok: boolean; distance?: number } {
  if (scope.filters && !matchesFilters(doc, scope.filters)) return { ok: false };
  if (!scope.requireGeo && !scope.geo) return { ok: true };
  const point = pointOfDocument(doc, scope.geo?.field ?? 'location');
  if (scope.requireGeo && !point) return { ok: false };
  if (!scope.geo) return { ok: true };
  if (!point) return { ok: false };
  const distance = haversineKm(scope.geo.lat, scope.geo.lon, point[0], point[1]);
  return distance <= scope.geo.radiusKm ? { ok: true, distance } : { ok: false };
}

/** A document's point: its location, or a metadata field holding one. */
export function pointOfDocument(doc: LoadedDocument, field: string): [number, number] | undefined {
  if (field === 'location') return doc.lat !== null && doc.lon !== null ? [doc.lat, doc.lon] : undefined;
  return pointOf(fieldValue(doc, field.startsWith('metadata.') ? field : `metadata.${field}`));
}

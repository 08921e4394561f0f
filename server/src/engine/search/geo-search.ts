import type { GeoFilter, Scope } from './scope.js';
import type { Hit } from './hit.js';
import type { SearchCore } from './search-core.js';

/**
 * Documents within `radiusKm` of a point, nearest first; score = 1 − distance / radius. The `location` field is
 * served by the R*Tree; another field (a metadata key holding a point) is checked on every readable document.
 */
export function geoSearch(core: SearchCore, scope: Scope & { geo: GeoFilter }): Hit[] {
  const candidates =
    scope.geo.field === 'location' ? [...core.load(scope, core.nearby(scope)).values()] : core.all(scope);
  const hits: Hit[] = [];
  for (const doc of candidates) {
    const accepted = core.accept(doc, scope);
    if (!accepted.ok || accepted.distance === undefined) continue;
    hits.push({ doc, score: 1 - accepted.distance / scope.geo.radiusKm, chunks: [], distance: accepted.distance });
  }
  return hits.sort((a, b) => a.distance! - b.distance!);
}

/** Great-circle geometry on a sphere of the Earth's mean radius (kilometres). */
const earthRadiusKm = 6371.0088;
const rad = (deg: number) => (deg * Math.PI) / 180;

/** Haversine distance in kilometres. */
export function haversineKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dLat = rad(lat2 - lat1);
  const dLon = rad(lon2 - lon1);
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(dLon / 2) ** 2;
  return 2 * earthRadiusKm * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** A latitude/longitude box containing the circle (longitude spans the whole range near the poles). */
export function boundingBox(
  lat: number,
  lon: number,
  radiusKm: number,
): { minLat: number; maxLat: number; minLon: number; maxLon: number } {
  const dLat = (radiusKm / earthRadiusKm) * (180 / Math.PI);
  const minLat = Math.max(-90, lat - dLat);
  const maxLat = Math.min(90, lat + dLat);
  const cos = Math.cos(rad(Math.max(Math.abs(minLat), Math.abs(maxLat))));
  if (cos < 1e-6 || maxLat >= 90 || minLat <= -90) return { minLat, maxLat, minLon: -180, maxLon: 180 };
  const dLon = dLat / cos;
  return { minLat, maxLat, minLon: Math.max(-180, lon - dLon), maxLon: Math.min(180, lon + dLon) };
}

/** Reads a point from a location value: [lat, lon], {lat, lon} or "lat,lon". */
export function pointOf(value: unknown): [number, number] | undefined {
  let lat: unknown;
  let lon: unknown;
  if (Array.isArray(value)) [lat, lon] = value;
  else if (typeof value === 'object' && value !== null) ({ lat, lon } = value as { lat?: unknown; lon?: unknown });
  else if (typeof value === 'string') [lat, lon] = value.split(',').map((s) => Number(s.trim()));
  const a = Number(lat);
  const b = Number(lon);
  return Number.isFinite(a) && Number.isFinite(b) && Math.abs(a) <= 90 && Math.abs(b) <= 180 ? [a, b] : undefined;
}

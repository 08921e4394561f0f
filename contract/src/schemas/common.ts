import { Type, type SchemaOptions, type Static, type TUnsafe } from '@sinclair/typebox';

/**
 * A closed set of literal values as a JSON-schema `enum` (not TypeBox's anyOf of consts), so a validation error
 * lists the allowed values and the playground renders a select.
 */
export function Enum<const T extends readonly (string | number)[]>(
  values: T,
  options: SchemaOptions = {},
): TUnsafe<T[number]> {
  const type = values.every((v) => typeof v === 'number') ? 'integer' : 'string';
  return Type.Unsafe<T[number]>({ ...options, type, enum: [...values] });
}

/** The one error body every API error answers with. */
export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'Stable SCREAMING_SNAKE code from the error catalogue.' }),
      message: Type.String({ description: 'What went wrong and how to fix it.' }),
      status: Type.Integer({ description: 'The HTTP status, repeated for clients that only keep the body.' }),
      field: Type.Optional(Type.String({ description: 'The offending field as a dotted path, e.g. body.email.' })),
      details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      request_id: Type.String({ description: 'Quote it when reporting a problem; it is in the server log.' }),
    }),
  },
  { $id: 'ErrorBody', description: 'Every non-2xx answer of the API.' },
);
export type ErrorBody = Static<typeof ErrorBody>;

export const SuccessMessage = Type.Object({
  success: Type.Boolean(),
  message: Type.String(),
});
export type SuccessMessage = Static<typeof SuccessMessage>;

export const Id = Type.String({ minLength: 1, maxLength: 256, description: 'An identifier.' });
export const Uuid = Type.String({ format: 'uuid', description: 'A UUID.' });
export const UnixSeconds = Type.Integer({ minimum: 0, description: 'Unix time in seconds.' });

/** A point given as [lat, lon] in degrees (the document `location` field). */
export const LatLon = Type.Tuple(
  [Type.Number({ minimum: -90, maximum: 90 }), Type.Number({ minimum: -180, maximum: 180 })],
  {
    description: '[lat, lon] in degrees',
  },
);

/** A point given as an object, as the vector search `center`. */
export const GeoPoint = Type.Object({
  lat: Type.Number({ minimum: -90, maximum: 90 }),
  lon: Type.Number({ minimum: -180, maximum: 180 }),
});

export const Lat = Type.Number({ minimum: -90, maximum: 90, description: 'Latitude in degrees.' });
export const Lon = Type.Number({ minimum: -180, maximum: 180, description: 'Longitude in degrees.' });
export const RadiusKm = Type.Number({ exclusiveMinimum: 0, description: 'Radius in kilometres.' });

export const StringMap = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
  description: 'Metadata: string keys; string values (numbers and booleans are kept as such for range filters).',
});

export const PathId = Type.Object({ id: Id });

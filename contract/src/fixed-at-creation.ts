/**
 * A schema annotation for an update body: the fields that exist only at creation, each with why it cannot change.
 * The server's validator refuses such a field with that reason (400 naming it) instead of calling it unknown, and
 * the OpenAPI document carries the annotation as a specification extension.
 *
 * @example Type.Object({ … }, { additionalProperties: false, [fixedAtCreation]: { shards: 'is fixed at creation' } })
 */
export const fixedAtCreation = 'x-fixed-at-creation';

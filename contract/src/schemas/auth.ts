import { Type, type Static } from '@sinclair/typebox';
import { DateInput, Enum, inputLimits, Uuid, UnixSeconds } from './common.js';

export const roleNames = ['user', 'admin', 'superadmin'] as const;
export type RoleName = (typeof roleNames)[number];
export const Role = Enum(roleNames, {
  description: 'user < admin (manages its tenant) < superadmin (manages the server).',
});

export const Email = Type.String({ format: 'email', maxLength: 254, description: 'E-mail address.' });
export const Password = Type.String({ minLength: 8, maxLength: 256, description: 'At least 8 characters.' });

export const Credentials = Type.Object(
  {
    email: Email,
    password: Password,
    tenant_id: Uuid,
  },
  { additionalProperties: false },
);
export type Credentials = Static<typeof Credentials>;

/** Register's body: without a tenant_id nothing is created (the login form's first call, see register.ts). */
export const RegisterBody = Type.Object(
  {
    email: Email,
    password: Password,
    tenant_id: Type.Optional(Uuid),
  },
  { additionalProperties: false },
);

/** Register's answer when no tenant_id was given. */
export const NothingRegistered = Type.Object({
  success: Type.Literal(false),
  message: Type.String(),
});

/** A tenant admin adds a member to their own tenant. */
export const NewMember = Type.Object(
  {
    email: Email,
    password: Password,
    role: Type.Union([Type.Literal('user'), Type.Literal('admin')], {
      default: 'user',
      description: 'The role: user (default) or admin.',
    }),
  },
  { additionalProperties: false },
);

export const LoginBody = Type.Object(
  {
    email: Email,
    password: Type.String({ minLength: 1, maxLength: 256 }),
    tenant_id: Type.Optional(
      Type.String({ maxLength: 64, description: 'Optional; when given it must be the user’s tenant.' }),
    ),
  },
  { additionalProperties: false },
);
export type LoginBody = Static<typeof LoginBody>;

export const User = Type.Object({
  id: Uuid,
  email: Email,
  tenant_id: Uuid,
  role: Role,
  groups: Type.Array(Uuid, { description: 'Ids of the groups the user belongs to.' }),
  created_at: UnixSeconds,
  updated_at: UnixSeconds,
});
export type User = Static<typeof User>;

export const CreatedUser = Type.Object({
  success: Type.Literal(true),
  message: Type.String(),
  user_id: Uuid,
  tenant_id: Uuid,
  role: Role,
});

export const TokenResponse = Type.Object({
  token: Type.String({ description: 'HS256 JWT; send it as `Authorization: Bearer <token>`.' }),
  token_type: Type.Literal('Bearer'),
  expires_at: UnixSeconds,
  user: User,
});

export const Group = Type.Object({
  id: Uuid,
  tenant_id: Uuid,
  name: Type.String(),
  description: Type.String(),
  created_at: UnixSeconds,
});
export type Group = Static<typeof Group>;

export const Permission = Type.Object({
  id: Uuid,
  resource: Type.String(),
  action: Type.String(),
  description: Type.String(),
});
export type Permission = Static<typeof Permission>;

/** Key ids: 16 lowercase hex characters, the part of a key after `godb_` that names it. */
export const apiKeyIdPattern = '^[0-9a-f]{16}$';
export const ApiKeyId = Type.String({
  pattern: apiKeyIdPattern,
  maxLength: 16,
  description: 'The key’s id: 16 hex characters, as in godb_<id>_<secret>.',
});

/** A new API key: its name, a role no higher than the caller's, and an optional expiry. */
export const NewApiKey = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'A label to recognise the key by, e.g. the program that uses it.',
    }),
    role: Type.Union([Type.Literal('user'), Type.Literal('admin'), Type.Literal('superadmin')], {
      default: 'user',
      description: 'The role the key acts with: user (default), or up to your own role.',
    }),
    expires_at: Type.Optional(DateInput),
  },
  { additionalProperties: false },
);

const secondsRange = { minimum: 0, maximum: inputLimits.unixSeconds };

/** An API key as listed: never its secret. */
export const ApiKey = Type.Object({
  id: ApiKeyId,
  name: Type.String(),
  role: Role,
  prefix: Type.String({ description: 'The key’s first characters (godb_<id>), to recognise it; not a secret.' }),
  user_id: Uuid,
  user_email: Email,
  created_at: UnixSeconds,
  expires_at: Type.Optional(
    Type.Integer({ ...secondsRange, description: 'When the key stops working (Unix seconds); absent: never.' }),
  ),
  last_used_at: Type.Optional(
    Type.Integer({
      ...secondsRange,
      description: 'When the key last authenticated a request (Unix seconds, to the minute); absent: never used.',
    }),
  ),
});
export type ApiKey = Static<typeof ApiKey>;

/** A new key, with its secret: shown once, it is stored only as a hash. */
export const CreatedApiKey = Type.Object({
  ...ApiKey.properties,
  key: Type.String({
    description:
      'The whole key, godb_<id>_<secret>. Shown only in this answer: send it as `Authorization: Bearer <key>` or `api-key: <key>`.',
  }),
});

export const ApiKeyList = Type.Object({
  keys: Type.Array(ApiKey),
  total: Type.Integer({ description: 'Keys in the list as a whole, across pages.' }),
});

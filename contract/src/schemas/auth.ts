import { Type, type Static } from '@sinclair/typebox';
import { Enum, Uuid, UnixSeconds } from './common.js';

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

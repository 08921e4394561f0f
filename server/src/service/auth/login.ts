import { createError } from '@godb/contract';
import type { UseCaseOf } from '../context.js';
import type { AuthDeps } from './deps.js';

/** A syntactically valid argon2id hash, checked when the e-mail is unknown so both failures take as long. */
const decoyHash = '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$0XrpSgn8m7iUW0EjMuS0iDn0o3a1lWsxMC8fuMc7Mr4';

/** Exchanges credentials for a token. Every failure is the same 401, so it does not reveal which part was wrong. */
export const loginUseCase =
  (deps: AuthDeps): UseCaseOf<'login'> =>
  async ({ body }) => {
    const user = deps.directory.findUserByEmail(body.email);
    const ok = await deps.passwords.verify(user?.passwordHash ?? decoyHash, body.password);
    if (!user || !ok || (body.tenant_id !== undefined && body.tenant_id !== user.tenant_id)) {
      throw createError('INVALID_CREDENTIALS');
    }
    const { passwordHash: _secret, ...publicUser } = user;
    const { token, expiresAt } = await deps.tokens.issue(publicUser);
    return { token, token_type: 'Bearer', expires_at: expiresAt, user: publicUser };
  };

import { hash, verify } from '@node-rs/argon2';

/** Hashes and checks passwords with argon2id (the library's default algorithm and OWASP-level parameters). */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(hashed: string, password: string): Promise<boolean>;
}

export const argon2Hasher: PasswordHasher = {
  hash: (password) => hash(password),
  verify: async (hashed, password) => {
    try {
      return await verify(hashed, password);
    } catch {
      return false;
    }
  },
};

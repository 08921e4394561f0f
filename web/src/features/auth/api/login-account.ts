import { operationById } from '@godb/contract';
import { useMutation } from '@tanstack/react-query';
import { ApiError, callOperation } from '../../../lib/api-client';

export interface LoginInput {
  readonly email: string;
  readonly password: string;
}

/** POST /api/v1/auth/login: the token, or the server's error text. Throws NetworkFailure when nothing answered. */
export async function loginAccount(input: LoginInput): Promise<{ token?: string; error?: string }> {
  try {
    const { token } = await callOperation<{ token?: string }>(operationById('login'), { body: input });
    return token ? { token } : {};
  } catch (error) {
    if (error instanceof ApiError) return error.serverMessage ? { error: error.serverMessage } : {};
    throw error;
  }
}

/** Logs in (see loginAccount). */
export function useLoginAccount() {
  return useMutation({ mutationFn: loginAccount });
}

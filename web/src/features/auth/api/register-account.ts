import { operationById } from '@godb/contract';
import { useMutation } from '@tanstack/react-query';
import { ApiError, callOperation } from '../../../lib/api-client';

export interface RegisterInput {
  readonly email: string;
  readonly password: string;
  readonly tenant_id?: string;
}

/**
 * POST /api/v1/auth/register: answers the server's error text when it refuses. Without `tenant_id` the server
 * creates nothing and answers `{ success: false, message }` (the login action's first step), so `success` decides
 * too. Throws NetworkFailure when nothing answered.
 */
export async function registerAccount(input: RegisterInput): Promise<{ ok: boolean; error?: string }> {
  try {
    const body = await callOperation<{ success?: boolean; message?: string }>(operationById('register'), {
      body: input,
    });
    if (body.success !== false) return { ok: true };
    return { ok: false, ...(body.message && { error: body.message }) };
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, ...(error.serverMessage && { error: error.serverMessage }) };
    throw error;
  }
}

/** Registers an account (see registerAccount). */
export function useRegisterAccount() {
  return useMutation({ mutationFn: registerAccount });
}

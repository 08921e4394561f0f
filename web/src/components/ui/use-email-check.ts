import { emailProblem } from '@godb/contract/email-rule';
import { useState } from 'react';

/**
 * The contract's e-mail rule, checked when a form is sent: the browser's `type="email"` lets `walker@invalid`
 * through and the server refuses it, so the form says why beside the field (and its usual failure message). Once
 * shown, the reason follows what is typed and goes away when the address is one the server accepts.
 *
 * @example const email = useEmailCheck(form.email); if (!email.passes()) return fail(); <TextField problem={email.problem} />
 */
export function useEmailCheck(value: string) {
  const [checked, setChecked] = useState(false);
  return {
    problem: checked ? emailProblem(value) : undefined,
    /** Whether the address passes; if not, its reason is shown from now on. */
    passes: () => {
      setChecked(true);
      return emailProblem(value) === undefined;
    },
    reset: () => setChecked(false),
  };
}

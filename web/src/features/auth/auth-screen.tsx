import { clientMessages } from '@godb/contract/errors';
import { useState, type FormEvent } from 'react';
import { useForm } from '../../components/ui/use-form';
import { useEmailCheck } from '../../components/ui/use-email-check';
import { Button } from '../../components/ui/button';
import { SegmentedTabs } from '../../components/ui/segmented-tabs';
import { Alert, TextField } from '../../components/ui/form-field';
import { emailServiceConfig } from '../../config/env';
import { NetworkFailure } from '../../lib/api-client';
import { authToken, sessionNotice } from '../../lib/auth-token';
import { usePageTitle } from '../../lib/page-title';
import { sendEmail } from '../../lib/mail';
import { useLoginAccount } from './api/login-account';
import { useRegisterAccount } from './api/register-account';
import styles from './auth-screen.module.css';

type Mode = 'login' | 'register';
const digit = () => Math.floor(Math.random() * 10);
const newCheck = () => ({ a: digit(), b: digit() });
const emptyForm = { email: '', password: '', confirm: '', name: '', company: '', answer: '' };

/** Login and registration, shown at /playground when no token is stored (site-spec §2). */
export function AuthScreen({ notice }: { notice?: string | null }) {
  const [mode, setMode] = useState<Mode>('login');
  const { form, setForm, bind, reset } = useForm(emptyForm);
  const [check, setCheck] = useState(newCheck);
  const [tenantId, setTenantId] = useState(() => crypto.randomUUID());
  const [error, setError] = useState(notice ?? '');
  const [success, setSuccess] = useState('');
  const [busy, setBusy] = useState(false);
  const { mutateAsync: registerAccount } = useRegisterAccount();
  const { mutateAsync: loginAccount } = useLoginAccount();
  const email = useEmailCheck(form.email);
  usePageTitle(mode === 'login' ? 'Log in — API Playground' : 'Register — API Playground');

  const switchMode = (next: Mode) => {
    sessionNotice.clear();
    setMode(next);
    reset();
    email.reset();
    setError('');
    setSuccess('');
    setCheck(newCheck());
    setTenantId(crypto.randomUUID());
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    sessionNotice.clear();
    setError('');
    setSuccess('');
    if (Number.parseInt(form.answer, 10) !== check.a + check.b) {
      setError(clientMessages.captchaIncorrect);
      setCheck(newCheck());
      setForm((f) => ({ ...f, answer: '' }));
      return;
    }
    // The server refuses what the shared rule refuses: its reason beside the field, the form's failure above.
    if (!email.passes()) return setError(mode === 'login' ? clientMessages.loginFailed : 'Registration failed');
    if (mode === 'register') {
      if (form.password !== form.confirm) return setError(clientMessages.passwordsDoNotMatch);
      if (form.name.trim() === '' || form.company.trim() === '') return setError(clientMessages.nameAndCompanyRequired);
    }
    setBusy(true);
    try {
      if (mode === 'register') {
        const result = await registerAccount({ email: form.email, password: form.password, tenant_id: tenantId });
        if (!result.ok) {
          setError(result.error ?? 'Registration failed');
          return;
        }
        await sendEmail(emailServiceConfig.templates.registration, {
          to_email: form.email,
          user_name: form.name,
          user_company: form.company,
          message: `Welcome to GoDB, ${form.name}. Your tenant is ${tenantId}.`,
        }).catch(() => ({ success: false }));
        switchMode('login');
        setSuccess(clientMessages.registrationSuccess);
        return;
      }
      // As the specification says: the register call comes first (its outcome is ignored), then the login. It
      // carries no tenant id, and the server creates a tenant only when one is given, so a mistyped e-mail cannot
      // become a new empty tenant: the login that follows answers 'Invalid email or password' (issue #20).
      await registerAccount({ email: form.email, password: form.password }).catch(() => undefined);
      const result = await loginAccount({ email: form.email, password: form.password });
      if (result.token) authToken.set(result.token, form.email.trim());
      else setError(result.error ?? clientMessages.loginFailed);
    } catch (e) {
      setError(e instanceof NetworkFailure ? e.message : clientMessages.loginFailed);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className={styles.wrap}>
      <div className={styles.card}>
        <h1>{mode === 'login' ? 'Log in to the API Playground' : 'Create your account'}</h1>
        <SegmentedTabs
          label="Login or register"
          options={[
            { value: 'login', label: 'Login' },
            { value: 'register', label: 'Register' },
          ]}
          value={mode}
          onChange={switchMode}
          stretch
        />
        <form onSubmit={submit} noValidate={false}>
          {error && <Alert kind="error">{error}</Alert>}
          {success && <Alert kind="success">{success}</Alert>}
          {mode === 'register' && (
            <>
              <TextField label="Name" markRequired autoComplete="name" placeholder="Ada Lovelace" {...bind('name')} />
              <TextField
                label="Company"
                markRequired
                autoComplete="organization"
                placeholder="Analytical Engines Ltd"
                {...bind('company')}
              />
            </>
          )}
          <TextField
            label="Email"
            type="email"
            required
            autoComplete="email"
            placeholder="you@example.com"
            problem={email.problem}
            {...bind('email')}
          />
          <TextField
            label="Password"
            type="password"
            required
            autoComplete={mode === 'login' ? 'current-password' : 'new-password'}
            placeholder="Your password"
            {...bind('password')}
          />
          {mode === 'register' && (
            <>
              <TextField
                label="Confirm Password"
                type="password"
                required
                autoComplete="new-password"
                placeholder="The same password again"
                {...bind('confirm')}
              />
              <TextField
                label="Tenant ID"
                name="tenant_id"
                readOnly
                value={tenantId}
                hint="Generated for you: your own isolated tenant."
              />
            </>
          )}
          <TextField
            label={`${check.a} + ${check.b} = ?`}
            inputMode="numeric"
            required
            placeholder="The sum"
            {...bind('answer')}
            hint="A quick human check."
          />
          <Button type="submit" size="lg" disabled={busy} className={styles.submit}>
            {busy ? 'Please wait...' : mode === 'login' ? 'Login' : 'Register'}
          </Button>
        </form>
      </div>
    </div>
  );
}

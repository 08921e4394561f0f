import { clientMessages } from '@godb/contract/errors';
import { useState, type FormEvent } from 'react';
import { useForm } from '../ui/use-form';
import { emailServiceConfig } from '../../config/env';
import { useEmailCheck } from '../ui/use-email-check';
import { sendEmail } from '../../lib/mail';
import { Button } from '../ui/button';
import { Alert, TextAreaField, TextField } from '../ui/form-field';
import { Modal, ModalActions } from '../ui/modal';
import styles from './binary-request-modal.module.css';

const empty = { name: '', company: '', email: '', phone: '', note: '' };

/** The 'Request Go DB Binary' dialog (site-spec §2): the download link arrives by e-mail. */
export function BinaryRequestModal({ onClose }: { onClose: () => void }) {
  const { form, bind, reset } = useForm(empty);
  const [state, setState] = useState<'form' | 'sending' | 'submitted'>('form');
  const [error, setError] = useState('');
  const email = useEmailCheck(form.email);

  const close = () => {
    reset();
    email.reset();
    setState('form');
    setError('');
    onClose();
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!email.passes()) return setError(clientMessages.binaryRequestFailed);
    setState('sending');
    setError('');
    try {
      const { success } = await sendEmail(emailServiceConfig.templates.binaryRequest, {
        from_name: form.name,
        from_company: form.company,
        from_email: form.email,
        from_phone: form.phone,
        message: form.note,
      });
      if (success) setState('submitted');
      else {
        setError(clientMessages.binaryRequestFailed);
        setState('form');
      }
    } catch {
      setError(clientMessages.unexpectedError);
      setState('form');
    }
  };

  return (
    <Modal title="Request Go DB Binary" onClose={close}>
      {state === 'submitted' ? (
        <div className={styles.done} role="status">
          <svg width="48" height="48" viewBox="0 0 24 24" aria-hidden="true">
            <circle cx="12" cy="12" r="11" fill="var(--color-success-soft)" />
            <path
              d="m7 12.5 3.2 3.2L17 9"
              fill="none"
              stroke="var(--color-success)"
              strokeWidth="2"
              strokeLinecap="round"
              strokeLinejoin="round"
            />
          </svg>
          <h3>Request Submitted!</h3>
          <p>The link to download binary will be sent via email.</p>
          <Button onClick={close}>Close</Button>
        </div>
      ) : (
        <form onSubmit={submit}>
          {error && <Alert kind="error">{error}</Alert>}
          <TextField label="Name" required autoComplete="name" {...bind('name')} />
          <TextField label="Company" required autoComplete="organization" {...bind('company')} />
          <TextField
            label="Email"
            type="email"
            required
            autoComplete="email"
            problem={email.problem}
            {...bind('email')}
          />
          <TextField label="Phone" type="tel" autoComplete="tel" {...bind('phone')} hint="Optional" />
          <TextAreaField label="Note" rows={3} {...bind('note')} hint="Optional: what you want to evaluate" />
          <ModalActions>
            <Button variant="secondary" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" disabled={state === 'sending'}>
              {state === 'sending' ? 'Sending...' : 'Request Binary'}
            </Button>
          </ModalActions>
        </form>
      )}
    </Modal>
  );
}

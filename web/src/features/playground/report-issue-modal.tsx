import { apiV1PathOf, type PlaygroundEndpoint } from './endpoints';
import { clientMessages } from '@godb/contract/errors';
import { useState, type FormEvent } from 'react';
import { Button } from '../../components/ui/button';
import { TextAreaField, TextField } from '../../components/ui/form-field';
import { Modal } from '../../components/ui/modal';
import { sendMail } from '../../lib/mail';
import styles from './playground.module.css';

const empty = { endpoint: '', name: '', email: '', description: '' };

/** 'Report an Issue' (api-spec §2): sent to the team through the mail helper. */
export function ReportIssueModal({
  endpoints,
  onClose,
}: {
  endpoints: readonly PlaygroundEndpoint[];
  onClose: () => void;
}) {
  const [form, setForm] = useState(empty);
  const [busy, setBusy] = useState(false);
  const set = (name: keyof typeof empty) => (e: { target: { value: string } }) =>
    setForm((f) => ({ ...f, [name]: e.target.value }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    const { success } = await sendMail({
      from_name: form.name,
      from_email: form.email,
      subject: `API Issue Report - ${form.endpoint}`,
      message: `Issue Report\n\nEndpoint: ${form.endpoint}\n\nDescription:\n${form.description}`,
    });
    setBusy(false);
    if (success) {
      setForm(empty);
      onClose();
      window.alert(clientMessages.issueReportSuccess);
    } else {
      window.alert(clientMessages.issueReportFailure);
    }
  };

  return (
    <Modal title="Report an Issue" onClose={onClose}>
      <form onSubmit={submit}>
        <div className={styles.field}>
          <label htmlFor="issue-endpoint">
            Endpoint
            <span aria-hidden="true" className={styles.required}>
              {' '}
              *
            </span>
          </label>
          <select id="issue-endpoint" required value={form.endpoint} onChange={set('endpoint')}>
            <option value="">Choose an endpoint</option>
            {endpoints.map(({ op }) => {
              const label = `${op.name} (${op.http.method} ${apiV1PathOf(op)})`;
              return (
                <option key={op.id} value={label}>
                  {label}
                </option>
              );
            })}
          </select>
        </div>
        <TextField label="Your Name" name="name" required value={form.name} onChange={set('name')} />
        <TextField label="Email" name="email" type="email" required value={form.email} onChange={set('email')} />
        <TextAreaField
          label="Issue Description"
          name="description"
          rows={4}
          required
          value={form.description}
          onChange={set('description')}
        />
        <div className={styles.modalActions}>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={busy}>
            {busy ? 'Submitting...' : 'Submit'}
          </Button>
        </div>
      </form>
    </Modal>
  );
}

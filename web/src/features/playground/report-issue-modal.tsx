import type { PlaygroundEndpoint } from './endpoints';
import { clientMessages } from '@godb/contract/errors';
import { useState, type FormEvent } from 'react';
import { useForm } from '../../components/ui/use-form';
import { useEmailCheck } from '../../components/ui/use-email-check';
import { Button } from '../../components/ui/button';
import { SelectField, TextAreaField, TextField } from '../../components/ui/form-field';
import { Modal, ModalActions } from '../../components/ui/modal';
import { apiV1Path } from '../../lib/api-client';
import { sendMail } from '../../lib/mail';

const empty = { endpoint: '', name: '', email: '', description: '' };

/** 'Report an Issue' (api-spec §2): sent to the team through the mail helper. */
export function ReportIssueModal({
  endpoints,
  onClose,
}: {
  endpoints: readonly PlaygroundEndpoint[];
  onClose: () => void;
}) {
  const { form, bind, reset } = useForm(empty);
  const [busy, setBusy] = useState(false);

  const email = useEmailCheck(form.email);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!email.passes()) return window.alert(clientMessages.issueReportFailure);
    setBusy(true);
    const { success } = await sendMail({
      from_name: form.name,
      from_email: form.email,
      subject: `API Issue Report - ${form.endpoint}`,
      message: `Issue Report\n\nEndpoint: ${form.endpoint}\n\nDescription:\n${form.description}`,
    });
    setBusy(false);
    if (success) {
      reset();
      onClose();
      window.alert(clientMessages.issueReportSuccess);
    } else {
      window.alert(clientMessages.issueReportFailure);
    }
  };

  return (
    <Modal title="Report an Issue" onClose={onClose}>
      <form onSubmit={submit}>
        <SelectField label="Endpoint" required {...bind('endpoint')}>
          <option value="">Choose an endpoint</option>
          {endpoints.map(({ op }) => {
            const label = `${op.name} (${op.http.method} ${apiV1Path(op)})`;
            return (
              <option key={op.id} value={label}>
                {label}
              </option>
            );
          })}
        </SelectField>
        <TextField label="Your Name" required {...bind('name')} />
        <TextField label="Email" type="email" required problem={email.problem} {...bind('email')} />
        <TextAreaField label="Issue Description" rows={4} required {...bind('description')} />
        <ModalActions>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={busy}>
            {busy ? 'Submitting...' : 'Submit'}
          </Button>
        </ModalActions>
      </form>
    </Modal>
  );
}

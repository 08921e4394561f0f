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

/** An endpoint as the Endpoint select shows it and the report names it. */
const labelOf = ({ op }: PlaygroundEndpoint) => `${op.name} (${op.http.method} ${apiV1Path(op)})`;

/**
 * 'Report an Issue' (api-spec §2): sent to the team through the mail helper. It starts on the endpoint being
 * viewed and the signed-in visitor's e-mail, both still changeable.
 */
export function ReportIssueModal({
  endpoints,
  current,
  email: signedInEmail,
  onClose,
}: {
  endpoints: readonly PlaygroundEndpoint[];
  current?: PlaygroundEndpoint | null;
  email?: string | null;
  onClose: () => void;
}) {
  const { form, bind, reset } = useForm({
    endpoint: current ? labelOf(current) : '',
    name: '',
    email: signedInEmail ?? '',
    description: '',
  });
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
          {endpoints.map((endpoint) => (
            <option key={endpoint.op.id} value={labelOf(endpoint)}>
              {labelOf(endpoint)}
            </option>
          ))}
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

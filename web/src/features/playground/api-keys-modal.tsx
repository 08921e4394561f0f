import { roleNames, type ApiKey, type RoleName } from '@godb/contract';
import { clientMessages } from '@godb/contract/errors';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Button } from '../../components/ui/button';
import { Alert, SelectField, TextField } from '../../components/ui/form-field';
import { Modal } from '../../components/ui/modal';
import { useForm } from '../../components/ui/use-form';
import { ApiError } from '../../lib/api-client';
import { useCreateApiKey } from './api/create-api-key';
import { useApiKeys } from './api/list-api-keys';
import { useRevokeApiKey } from './api/revoke-api-key';
import styles from './api-keys-modal.module.css';

/**
 * The role claim of a login token, to offer only the roles a key may have (no higher than the caller's). The
 * server decides; this only keeps the form from offering what it would refuse.
 */
function tokenRole(token: string): RoleName {
  try {
    const payload = token.split('.')[1] ?? '';
    const claims = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as { role?: unknown };
    return (roleNames as readonly unknown[]).includes(claims.role) ? (claims.role as RoleName) : 'user';
  } catch {
    return 'user';
  }
}

/** A time as the list shows it, the same everywhere: 2026-01-01 12:00 UTC. */
const when = (seconds: number) => `${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

const empty = { name: '', role: 'user', expiresOn: '' };

/**
 * The playground's API keys: create one (name, role, optional expiry) and copy its secret, shown only once; list
 * the keys (a tenant admin sees the tenant's) and revoke them.
 */
export function ApiKeysModal({
  token,
  onClose,
  onSessionEnd,
}: {
  token: string;
  onClose: () => void;
  /** The server refused the login token itself (401): the playground logs out. */
  onSessionEnd: () => void;
}) {
  const { form, bind, reset } = useForm(empty);
  const list = useApiKeys(token);
  const creating = useCreateApiKey(token);
  const revoking = useRevokeApiKey(token);
  const [created, setCreated] = useState<(ApiKey & { key: string }) | null>(null);
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const maxRank = roleNames.indexOf(tokenRole(token));
  const roles = roleNames.filter((_, rank) => rank <= maxRank);

  // The latest callback, without re-running the effect each time the page passes a new one.
  const sessionEnd = useRef(onSessionEnd);
  useEffect(() => {
    sessionEnd.current = onSessionEnd;
  });

  /** Shows a failed call's message (the catalogue's text), or ends the session when the login token was refused. */
  const fail = (e: unknown) => {
    if (e instanceof ApiError && e.endsSession) sessionEnd.current();
    else setError((e as Error).message); // an ApiError's message, or NetworkFailure's: what to check
  };
  useEffect(() => {
    if (list.error instanceof ApiError && list.error.endsSession) sessionEnd.current();
  }, [list.error]);
  const listError =
    list.error && !(list.error instanceof ApiError && list.error.endsSession) ? list.error.message : null;
  const keys = list.data?.keys ?? null;

  const create = (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    setCopied(null);
    if (form.name.trim() === '') return setError(clientMessages.apiKeyNameRequired);
    creating.mutate(form, {
      onSuccess: (key) => {
        setCreated(key);
        reset();
      },
      onError: fail,
    });
  };

  const copy = async () => {
    if (!created) return;
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };

  const revoke = (key: ApiKey) => {
    setError(null);
    revoking.mutate(key.id, {
      onSuccess: () => {
        if (created?.id === key.id) setCreated(null);
      },
      onError: fail,
    });
  };

  return (
    <Modal title="API keys" onClose={onClose}>
      <p className={styles.intro}>
        Programs authenticate with a key instead of your login: send it as{' '}
        <code>Authorization: Bearer &lt;key&gt;</code> or <code>api-key: &lt;key&gt;</code>. A key acts as you, with the
        role you give it.
      </p>
      <form onSubmit={create} noValidate className={styles.form}>
        <TextField label="Name" markRequired placeholder="What the key is for, e.g. nightly import" {...bind('name')} />
        <div className={styles.row}>
          <SelectField label="Role" {...bind('role')}>
            {roles.map((role) => (
              <option key={role} value={role}>
                {role}
              </option>
            ))}
          </SelectField>
          <TextField label="Expires on (optional)" type="date" hint="Empty: never expires" {...bind('expiresOn')} />
        </div>
        <Button type="submit" disabled={creating.isPending}>
          {creating.isPending ? 'Creating...' : 'Create key'}
        </Button>
      </form>
      {(error ?? listError) && <Alert kind="error">{error ?? listError}</Alert>}
      {created && (
        <section className={styles.secret} aria-labelledby="new-key-title">
          <h3 id="new-key-title">New key “{created.name}”</h3>
          <p role="status">
            <strong>{clientMessages.apiKeyShownOnce}</strong>
          </p>
          <div className={styles.secretRow}>
            <input
              aria-label="New API key"
              readOnly
              value={created.key}
              onFocus={(e) => e.currentTarget.select()}
              className={styles.secretValue}
            />
            <Button variant="secondary" onClick={() => void copy()}>
              {copied === 'yes' ? 'Copied' : 'Copy'}
            </Button>
          </div>
          {copied === 'failed' && <Alert kind="error">{clientMessages.apiKeyCopyFailed}</Alert>}
        </section>
      )}
      <section aria-labelledby="key-list-title">
        <h3 id="key-list-title" className={styles.listTitle}>
          Keys
        </h3>
        {keys === null ? (
          <p className={styles.muted}>Loading...</p>
        ) : keys.length === 0 ? (
          <p className={styles.muted}>No API keys yet.</p>
        ) : (
          <ul className={styles.keys} aria-label="API keys">
            {keys.map((key) => (
              <li key={key.id} className={styles.key}>
                <div className={styles.keyHead}>
                  <strong>{key.name}</strong>
                  <span className={styles.role}>{key.role}</span>
                  <Button variant="secondary" aria-label={`Revoke ${key.name}`} onClick={() => revoke(key)}>
                    Revoke
                  </Button>
                </div>
                <code className={styles.prefix}>{key.prefix}…</code>
                <dl className={styles.facts}>
                  <dt>Owner</dt>
                  <dd>{key.user_email}</dd>
                  <dt>Created</dt>
                  <dd>{when(key.created_at)}</dd>
                  <dt>Expires</dt>
                  <dd>{key.expires_at === undefined ? 'Never' : when(key.expires_at)}</dd>
                  <dt>Last used</dt>
                  <dd>{key.last_used_at === undefined ? 'Never' : when(key.last_used_at)}</dd>
                </dl>
              </li>
            ))}
          </ul>
        )}
      </section>
    </Modal>
  );
}

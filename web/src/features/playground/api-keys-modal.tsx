import { roleNames, type ApiKey, type RoleName } from '@godb/contract';
import { clientMessages } from '@godb/contract/errors';
import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { Button } from '../../components/ui/button';
import { Alert, TextField } from '../../components/ui/form-field';
import { Modal } from '../../components/ui/modal';
import { useForm } from '../../components/ui/use-form';
import type { ApiAnswer } from './api/api-answer';
import { createApiKey } from './api/create-api-key';
import { listApiKeys } from './api/list-api-keys';
import { revokeApiKey } from './api/revoke-api-key';
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
  const [keys, setKeys] = useState<readonly ApiKey[] | null>(null);
  const [created, setCreated] = useState<(ApiKey & { key: string }) | null>(null);
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const maxRank = roleNames.indexOf(tokenRole(token));
  const roles = roleNames.filter((_, rank) => rank <= maxRank);

  // The latest callback, without reloading the list each time the page passes a new one.
  const sessionEnd = useRef(onSessionEnd);
  useEffect(() => {
    sessionEnd.current = onSessionEnd;
  });

  /** The value of an answer, or null after showing its error (or ending the session on a 401). */
  const valueOf = useCallback(<T,>(answer: ApiAnswer<T>): T | null => {
    if (answer.ok) return answer.value;
    if (answer.status === 401) sessionEnd.current();
    else setError(answer.message);
    return null;
  }, []);

  const showList = useCallback(
    (answer: ApiAnswer<{ keys: ApiKey[] }>) => {
      const listed = valueOf(answer);
      if (listed) setKeys(listed.keys);
    },
    [valueOf],
  );
  // Nothing answered (NetworkFailure): its message says what to check.
  const showFailure = (e: unknown) => setError((e as Error).message);
  const refresh = async () => listApiKeys(token).then(showList, showFailure);

  useEffect(() => {
    listApiKeys(token).then(showList, (e: unknown) => setError((e as Error).message));
  }, [token, showList]);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    setCopied(null);
    if (form.name.trim() === '') return setError(clientMessages.apiKeyNameRequired);
    setBusy(true);
    try {
      const key = valueOf(await createApiKey(token, form));
      if (key) {
        setCreated(key);
        reset();
        await refresh();
      }
    } catch (e) {
      showFailure(e);
    } finally {
      setBusy(false);
    }
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

  const revoke = async (key: ApiKey) => {
    setError(null);
    try {
      if (valueOf(await revokeApiKey(token, key.id))) {
        if (created?.id === key.id) setCreated(null);
        await refresh();
      }
    } catch (e) {
      showFailure(e);
    }
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
          <div className={styles.select}>
            <label htmlFor="api-key-role">Role</label>
            <select id="api-key-role" {...bind('role')}>
              {roles.map((role) => (
                <option key={role} value={role}>
                  {role}
                </option>
              ))}
            </select>
          </div>
          <TextField label="Expires on (optional)" type="date" hint="Empty: never expires" {...bind('expiresOn')} />
        </div>
        <Button type="submit" disabled={busy}>
          {busy ? 'Creating...' : 'Create key'}
        </Button>
      </form>
      {error && <Alert kind="error">{error}</Alert>}
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
                  <Button variant="secondary" aria-label={`Revoke ${key.name}`} onClick={() => void revoke(key)}>
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

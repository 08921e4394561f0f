import { clientMessages, formatMessage } from '@godb/contract/errors';
import { useEffect, useMemo, useState } from 'react';
import { Link } from 'react-router';
import { Button } from '../../components/ui/button';
import { MethodBadge } from '../../components/ui/method-badge';
import { InlineCode } from '../../components/ui/inline-code';
import { apiBaseUrl } from '../../config/env';
import { paths } from '../../config/paths';
import { apiRequest } from '../../lib/api-client';
import { authToken, sessionNotice } from '../../lib/auth-token';
import { usePageTitle } from '../../lib/page-title';
import { ApiKeysModal } from './api-keys-modal';
import { apiV1Path, buildRequest, ClientValidationError, toCurl, type BuiltRequest } from './build-request';
import { EndpointForm } from './endpoint-form';
import { playgroundCategories, playgroundEndpoints, type PlaygroundEndpoint } from './endpoints';
import { extractFileText } from './extract-file-text';
import { importDocuments } from './api/import-documents';
import { uploadSnapshot } from './api/upload-snapshot';
import { ReportIssueModal } from './report-issue-modal';
import { endsSession } from './session-expiry';
import styles from './playground.module.css';

type Response = { readonly error: boolean; readonly text: string } | null;

/**
 * Values a form starts with: the schema's defaults, the server's default model, and the upload's defaults. A
 * required select without a default starts on its first option, the one the browser shows: a form sends what it
 * displays (issue #20: Update ACL showed "add" and sent nothing).
 */
function initialValues(endpoint: PlaygroundEndpoint, defaultModel: string | null): Record<string, string> {
  const values: Record<string, string> = {};
  for (const field of endpoint.fields) {
    if (field.default !== undefined) values[field.name] = String(field.default);
    else if (field.kind === 'select' && field.required && field.options?.[0] !== undefined) {
      values[field.name] = field.options[0];
    }
    if (field.name === 'model_name' && defaultModel) values[field.name] = defaultModel;
  }
  if (endpoint.op.id === 'add-document') {
    const now = String(Math.floor(Date.now() / 1000));
    values.created_at = now;
    values.updated_at = now;
    if (defaultModel) values.embedding_options = JSON.stringify({ model_name: defaultModel });
  }
  return values;
}

/** On one-column layouts the form is below the whole endpoint list: bring it into view once one is chosen. */
function showFormOnNarrowScreens() {
  if (!window.matchMedia('(max-width: 860px)').matches) return;
  requestAnimationFrame(() => document.getElementById('main')?.scrollIntoView({ block: 'start' }));
}

export function PlaygroundPage({ token }: { token: string }) {
  usePageTitle('API Playground');
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [valuesById, setValuesById] = useState<Record<string, Record<string, string>>>({});
  const [files, setFiles] = useState<Record<string, File | null>>({});
  const [response, setResponse] = useState<Response>(null);
  const [busy, setBusy] = useState(false);
  /** Bytes of an NDJSON upload sent so far, for its progress bar. */
  const [progress, setProgress] = useState<{ sent: number; total: number } | null>(null);
  const [reporting, setReporting] = useState(false);
  const [managingKeys, setManagingKeys] = useState(false);
  const [defaultModel, setDefaultModel] = useState<string | null>(null);
  const [curl, setCurl] = useState<string | null>(null);

  useEffect(() => {
    apiRequest('GET', '/api/v1/embeddings/models', { token })
      .then((res) => res.ok && setDefaultModel((res.body as { default_model?: string }).default_model ?? null))
      .catch(() => undefined);
  }, [token]);

  const selected = useMemo(() => playgroundEndpoints.find((e) => e.op.id === selectedId) ?? null, [selectedId]);
  const values = selected ? (valuesById[selected.op.id] ?? initialValues(selected, defaultModel)) : {};

  const logout = (notice?: string) => {
    if (notice) sessionNotice.set(notice);
    setSelectedId(null);
    setResponse(null);
    setValuesById({});
    setFiles({});
    authToken.clear();
  };

  const change = (name: string, value: string) => {
    if (!selected) return;
    setValuesById((all) => ({ ...all, [selected.op.id]: { ...values, [name]: value } }));
  };

  /** Reads the chosen file (PDF or text) into text_content; throws the specification's messages. */
  const withFile = async (
    endpoint: PlaygroundEndpoint,
    current: Record<string, string>,
  ): Promise<Record<string, string>> => {
    const file = files[endpoint.op.id];
    if (!file) return current;
    const text = await extractFileText(file);
    return {
      ...current,
      text_content: text,
      file_type: current.file_type || file.type || 'application/pdf',
      title: current.title || file.name,
    };
  };

  const prepare = async (): Promise<BuiltRequest> => {
    if (!selected) throw new ClientValidationError('Select an endpoint');
    return buildRequest(selected.op, await withFile(selected, values));
  };

  const send = async () => {
    setBusy(true);
    setCurl(null);
    setProgress(null);
    try {
      // An NDJSON import and a snapshot upload send their file as the body, with an upload progress bar.
      const streamOp = selected && ('ndjson' in selected.op || 'binary' in selected.op) ? selected.op : null;
      const streamFile = streamOp ? files[streamOp.id] : undefined;
      if (streamOp && !streamFile) {
        throw new ClientValidationError(
          'binary' in streamOp
            ? 'Choose a snapshot archive (.tar) to upload'
            : 'Choose an NDJSON file to import (one document per line)',
        );
      }
      const request = streamOp ? buildRequest(streamOp, values) : await prepare();
      const onProgress = (sent: number, total: number) => setProgress({ sent, total });
      const res = streamFile
        ? streamOp && 'binary' in streamOp
          ? await uploadSnapshot(token, streamFile, onProgress)
          : await importDocuments(token, streamFile, request.query, onProgress)
        : await apiRequest(request.method, request.path, {
            token,
            body: request.body,
            ...(request.query && { query: request.query }),
          });
      if (!res.ok) {
        const text = formatMessage(clientMessages.apiError, {
          status: res.status,
          statusText: res.statusText,
          body: res.text,
        });
        if (endsSession(res.status, res.body)) return logout(clientMessages.sessionExpired);
        setResponse({ error: true, text });
        return;
      }
      setResponse({
        error: typeof res.body === 'object' && res.body !== null && 'error' in res.body,
        // An NDJSON answer (one line per imported line) is shown as it came.
        text: typeof res.body === 'string' ? res.text : JSON.stringify(res.body, null, 2),
      });
    } catch (error) {
      // Client-side checks and network failures: no answer of the server, so never a session expiry.
      setResponse({ error: true, text: error instanceof Error ? error.message : String(error) });
    } finally {
      setBusy(false);
    }
  };

  const showCurl = async () => {
    try {
      setCurl(toCurl(await prepare(), apiBaseUrl(), token));
    } catch (error) {
      setResponse({ error: true, text: (error as Error).message });
    }
  };

  return (
    <div className={styles.page}>
      <header className={styles.header}>
        <Link to={paths.home.getHref()} className={styles.brand}>
          GoDB <span>API Playground</span>
        </Link>
        <nav aria-label="Playground">
          <Link to={paths.home.getHref()}>Home</Link>
          <Link to={paths.whitepaper.getHref()}>Whitepaper</Link>
          <Link to={paths.documentation.getHref()}>Documentation</Link>
        </nav>
      </header>
      <div className={styles.body}>
        <aside className={styles.sidebar} aria-labelledby="endpoints-title">
          <div className={styles.sidebarHead}>
            <h2 id="endpoints-title">API Endpoints</h2>
            <Button variant="secondary" onClick={() => logout()}>
              Logout
            </Button>
          </div>
          <Button variant="secondary" className={styles.keysButton} onClick={() => setManagingKeys(true)}>
            API keys
          </Button>
          {playgroundCategories.map(({ category, title }) => (
            <div key={category} className={styles.group}>
              <h3>{title}</h3>
              <ul>
                {playgroundEndpoints
                  .filter((e) => e.op.category === category)
                  .map(({ op }) => (
                    <li key={op.id}>
                      <button
                        type="button"
                        className={op.id === selectedId ? `${styles.endpoint} ${styles.selected}` : styles.endpoint}
                        aria-pressed={op.id === selectedId}
                        onClick={() => {
                          setSelectedId(op.id);
                          setResponse(null);
                          setCurl(null);
                          showFormOnNarrowScreens();
                        }}
                      >
                        <MethodBadge method={op.http.method} />
                        <span>{op.name}</span>
                      </button>
                    </li>
                  ))}
              </ul>
            </div>
          ))}
        </aside>
        <main id="main" className={styles.main}>
          {!selected ? (
            <p className={styles.empty}>Select an endpoint from the sidebar to get started</p>
          ) : (
            <>
              <div className={styles.title}>
                <h1>{selected.op.name}</h1>
                <p>
                  <MethodBadge method={selected.op.http.method} /> <code>{apiV1Path(selected.op)}</code>
                </p>
                <p className={styles.description}>
                  <InlineCode text={selected.op.description} />
                </p>
              </div>
              {/* The form's own checks give the specification's messages (e.g. a text search without its query):
                  the browser's required-field bubble would stand in front of them. */}
              <form
                noValidate
                onSubmit={(e) => {
                  e.preventDefault();
                  void send();
                }}
              >
                <EndpointForm
                  fields={selected.fields}
                  values={values}
                  onChange={change}
                  onFile={(file) => setFiles((f) => ({ ...f, [selected.op.id]: file }))}
                />
                <div className={styles.actions}>
                  <Button type="submit" size="lg" disabled={busy}>
                    {busy ? 'Sending...' : 'Send Request'}
                  </Button>
                  <Button variant="secondary" onClick={() => void showCurl()}>
                    Copy as curl
                  </Button>
                </div>
              </form>
              {progress && (
                <p className={styles.description}>
                  <label htmlFor="upload-progress">Upload </label>
                  <progress id="upload-progress" max={progress.total || 1} value={progress.sent} />{' '}
                  {Math.round((progress.sent / (progress.total || 1)) * 100)}%
                </p>
              )}
              {curl && (
                <pre className={styles.curl} aria-label="curl command">
                  <code>{curl}</code>
                </pre>
              )}
              <section className={styles.response} aria-labelledby="response-title">
                <h2 id="response-title">Response</h2>
                <pre
                  className={response?.error ? `${styles.output} ${styles.outputError}` : styles.output}
                  data-testid="response"
                  aria-live="polite"
                >
                  <code>{response ? response.text : 'No request sent yet.'}</code>
                </pre>
              </section>
            </>
          )}
        </main>
      </div>
      <button type="button" className={styles.reportButton} onClick={() => setReporting(true)}>
        Report Issue
      </button>
      {reporting && <ReportIssueModal endpoints={playgroundEndpoints} onClose={() => setReporting(false)} />}
      {managingKeys && (
        <ApiKeysModal
          token={token}
          onClose={() => setManagingKeys(false)}
          onSessionEnd={() => {
            setManagingKeys(false);
            logout(clientMessages.sessionExpired);
          }}
        />
      )}
    </div>
  );
}

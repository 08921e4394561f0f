import { clientMessages } from '@godb/contract/errors';
import { useEffect, useMemo, useState } from 'react';
import { Link } from 'react-router';
import { Button } from '../../components/ui/button';
import { MethodBadge } from '../../components/ui/method-badge';
import { InlineCode } from '../../components/ui/inline-code';
import { apiBaseUrl } from '../../config/env';
import { paths } from '../../config/paths';
import { ApiError, answerText, apiV1Path } from '../../lib/api-client';
import { authToken, sessionNotice } from '../../lib/auth-token';
import { usePageTitle } from '../../lib/page-title';
import { ApiKeysModal } from './api-keys-modal';
import { useDefaultModel } from './api/list-embedding-models';
import { useSendOperation } from './api/send-operation';
import { buildRequest, ClientValidationError, toCurl, type BuiltRequest, type ChosenFiles } from './build-request';
import { EndpointForm } from './endpoint-form';
import { playgroundCategories, playgroundEndpoints, type PlaygroundEndpoint } from './endpoints';
import { extractFileText } from './extract-file-text';
import { JobProgress } from './job-progress';
import { ReportIssueModal } from './report-issue-modal';
import list from '../../components/ui/list-button.module.css';
import prose from '../../components/ui/prose.module.css';
import styles from './playground.module.css';

type Response = {
  readonly error: boolean;
  readonly text: string;
  /** A file the answer carried, to save: an object URL and its name. */
  readonly file?: { readonly url: string; readonly name: string };
} | null;

/**
 * Values a form starts with: the schema's defaults, then what only the browser knows (the catalogue's `initial`:
 * the time now, the server's default model). A required select without a default starts on its first option, the
 * one the browser shows: a form sends what it displays (issue #20: Update ACL showed "add" and sent nothing).
 */
function initialValues(endpoint: PlaygroundEndpoint, defaultModel: string | null): Record<string, string> {
  const values: Record<string, string> = {};
  const now = String(Math.floor(Date.now() / 1000));
  for (const field of endpoint.fields) {
    if (field.default !== undefined) values[field.name] = String(field.default);
    else if (field.kind === 'select' && field.required && field.options?.[0] !== undefined) {
      values[field.name] = field.options[0];
    }
    if (field.initial === 'now') values[field.name] = now;
    else if (field.initial === 'default-model' && defaultModel) values[field.name] = defaultModel;
    else if (field.initial === 'default-model-options' && defaultModel) {
      values[field.name] = JSON.stringify({ model_name: defaultModel });
    }
  }
  return values;
}

/**
 * Reads each chosen file that fills fields (a PDF or text file into text_content, its type and name where left
 * empty), as the catalogue's `fills` says; throws the specification's messages.
 */
async function fillFromFiles(
  endpoint: PlaygroundEndpoint,
  values: Record<string, string>,
  files: ChosenFiles,
): Promise<Record<string, string>> {
  let filled = values;
  for (const field of endpoint.fields) {
    const file = files[field.name];
    if (!field.fills || !(file instanceof File)) continue;
    const { text, type, name } = field.fills;
    filled = {
      ...filled,
      [text]: await extractFileText(file),
      ...(type && { [type]: filled[type] || file.type || 'application/pdf' }),
      ...(name && { [name]: filled[name] || file.name }),
    };
  }
  return filled;
}

/** On one-column layouts the form is below the whole endpoint list: bring it into view once one is chosen. */
function showFormOnNarrowScreens() {
  if (!window.matchMedia('(max-width: 860px)').matches) return;
  requestAnimationFrame(() => document.getElementById('main')?.scrollIntoView({ block: 'start' }));
}

/** A background job's id in a success answer (an asynchronous add or import, a snapshot): its progress is shown. */
const jobIdOf = (body: unknown): string | null =>
  typeof body === 'object' && body !== null && 'job_id' in body && typeof body.job_id === 'string' ? body.job_id : null;

export function PlaygroundPage({ token }: { token: string }) {
  usePageTitle('API Playground');
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [valuesById, setValuesById] = useState<Record<string, Record<string, string>>>({});
  const [filesById, setFilesById] = useState<Record<string, Record<string, File | null>>>({});
  const [response, setResponse] = useState<Response>(null);
  /** Bytes of a file upload sent so far, for its progress bar. */
  const [progress, setProgress] = useState<{ sent: number; total: number } | null>(null);
  const [jobId, setJobId] = useState<string | null>(null);
  const [reporting, setReporting] = useState(false);
  const [managingKeys, setManagingKeys] = useState(false);
  const [curl, setCurl] = useState<string | null>(null);
  /** A chosen PDF is being read into the form before sending. */
  const [preparing, setPreparing] = useState(false);
  // A saved file's object URL lives until the next answer replaces it.
  // An answer is brought into view above the floating Report Issue button (html's scroll-padding-bottom).
  useEffect(() => {
    if (response) document.getElementById('response-title')?.parentElement?.scrollIntoView({ block: 'nearest' });
  }, [response]);
  const fileUrl = response?.file?.url;
  useEffect(() => (fileUrl ? () => URL.revokeObjectURL(fileUrl) : undefined), [fileUrl]);
  const defaultModel = useDefaultModel(token);
  const sending = useSendOperation(token);
  const busy = preparing || sending.isPending;

  const selected = useMemo(() => playgroundEndpoints.find((e) => e.op.id === selectedId) ?? null, [selectedId]);
  const values = selected ? (valuesById[selected.op.id] ?? initialValues(selected, defaultModel)) : {};
  const files = selected ? (filesById[selected.op.id] ?? {}) : {};

  const logout = (notice?: string) => {
    if (notice) sessionNotice.set(notice);
    setSelectedId(null);
    setResponse(null);
    setValuesById({});
    setFilesById({});
    authToken.clear();
  };

  const change = (name: string, value: string) => {
    if (!selected) return;
    setValuesById((all) => ({ ...all, [selected.op.id]: { ...values, [name]: value } }));
  };

  const prepare = async (): Promise<BuiltRequest> => {
    if (!selected) throw new ClientValidationError('Select an endpoint');
    return buildRequest(selected.op, await fillFromFiles(selected, values, files), { files });
  };

  /** Shows an error; the form keeps what the visitor typed. A refused token ends the session. */
  const showError = (error: unknown) => {
    if (error instanceof ApiError && error.endsSession) return logout(clientMessages.sessionExpired);
    // Client-side checks and network failures: no answer of the server, so never a session expiry.
    setResponse({ error: true, text: error instanceof ApiError ? error.display : (error as Error).message });
  };

  const send = async () => {
    if (!selected) return;
    setCurl(null);
    setProgress(null);
    setJobId(null);
    let request: BuiltRequest;
    setPreparing(true);
    try {
      request = await prepare();
    } catch (error) {
      return showError(error);
    } finally {
      setPreparing(false);
    }
    sending.mutate(
      { op: selected.op, request, ...(request.file && { onProgress: (sent, total) => setProgress({ sent, total }) }) },
      {
        onSuccess: (res) => {
          setResponse({
            error: typeof res.body === 'object' && res.body !== null && 'error' in res.body,
            text: answerText(res),
            ...(res.download && { file: { url: URL.createObjectURL(res.download.blob), name: res.download.name } }),
          });
          setJobId(jobIdOf(res.body));
        },
        onError: showError,
      },
    );
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
                        className={`${list.button} ${styles.endpoint} ${op.id === selectedId ? styles.selected : ''}`}
                        aria-pressed={op.id === selectedId}
                        onClick={() => {
                          setSelectedId(op.id);
                          setResponse(null);
                          setCurl(null);
                          setProgress(null);
                          setJobId(null);
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
                  onFile={(name, file) =>
                    setFilesById((all) => ({ ...all, [selected.op.id]: { ...all[selected.op.id], [name]: file } }))
                  }
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
                <pre className={`${prose.codeBlock} ${styles.curl}`} aria-label="curl command">
                  <code>{curl}</code>
                </pre>
              )}
              <section className={styles.response} aria-labelledby="response-title">
                <h2 id="response-title">Response</h2>
                <pre
                  className={
                    response?.error
                      ? `${prose.codeBlock} ${styles.output} ${styles.outputError}`
                      : `${prose.codeBlock} ${styles.output}`
                  }
                  data-testid="response"
                  aria-live="polite"
                >
                  <code>{response ? response.text : 'No request sent yet.'}</code>
                </pre>
                {response?.file && (
                  <p>
                    <a href={response.file.url} download={response.file.name}>
                      Save {response.file.name}
                    </a>
                  </p>
                )}
              </section>
              {jobId && (
                <JobProgress token={token} jobId={jobId} onSessionEnd={() => logout(clientMessages.sessionExpired)} />
              )}
            </>
          )}
        </main>
      </div>
      <button type="button" className={styles.reportButton} onClick={() => setReporting(true)}>
        Report Issue
      </button>
      {reporting && (
        <ReportIssueModal
          endpoints={playgroundEndpoints}
          current={selected}
          email={authToken.email()}
          onClose={() => setReporting(false)}
        />
      )}
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

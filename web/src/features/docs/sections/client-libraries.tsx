import { qdrantCompatibility, qdrantIgnoredSettings } from '@godb/contract';
import { ColumnHeads } from '../column-heads';
import { langchainQuickstart, typescriptQuickstart } from './client-quickstarts';
import { pythonInstall, pythonQuickstart } from './python-quickstart';

export default function ClientLibraries() {
  return (
    <>
      <p>
        Programs talk to GoDB through a client library rather than raw HTTP: typed methods, errors you can switch on,
        retries when the server asks to wait, and streamed imports. The libraries below live in this repository and
        follow the API catalogue, so a new operation cannot ship without its method. Authenticate them with an API key
        (create one in the playground or with <code>POST /auth/api-keys</code>) or by logging in.
      </p>

      <h2>TypeScript: @godb/client</h2>
      <p>
        One method per operation, grouped by category: <code>client.documents.add</code>,{' '}
        <code>client.search.hybrid</code>, <code>client.collections.create</code>, <code>client.auth.login</code>. The
        name is the operation’s id in camelCase without the word naming its group; where that leaves two, the one acting
        on many ends in <code>Many</code> (<code>documents.delete</code> by id, <code>documents.deleteMany</code> by
        filter). A method takes one object with the path parameters, query parameters and body fields (an array body is{' '}
        <code>body</code>), typed from the catalogue’s schemas, and answers the typed response. It runs on the
        platform’s <code>fetch</code> (Node.js 20 or later) with no other dependency.
      </p>
      <pre aria-label="Install the TypeScript client">
        <code>{`# not on npm yet: build it in a checkout of GoDB and install it from there
npm install && npm run build
npm install /path/to/godb/clients/typescript`}</code>
      </pre>
      <h3>Quickstart</h3>
      <p>
        Save as <code>quickstart.mts</code> and run <code>GODB_API_KEY=godb_… npx tsx quickstart.mts</code> against a
        running server:
      </p>
      <pre aria-label="TypeScript quickstart" data-snippet="typescript">
        <code>{typescriptQuickstart}</code>
      </pre>
      <h3>Errors, retries and time limits</h3>
      <ul>
        <li>
          Every failure is a <code>GoDBError</code> with the catalogue’s <code>code</code> (as in the API reference),
          the HTTP <code>status</code>, the offending <code>field</code> and the <code>requestId</code> that is also in
          the server’s log. Failures without an answer have status 0 and the codes <code>NETWORK_ERROR</code>,{' '}
          <code>CLIENT_TIMEOUT</code>, <code>UNEXPECTED_ANSWER</code> or <code>MISSING_PATH_PARAM</code>.
        </li>
        <li>
          429 and 503 answers are retried up to 3 times with exponential backoff and full jitter (from 250 ms, at most
          10 s), waiting what <code>Retry-After</code> says. A 429, or a 503 that refused the request before any work
          (overload, shutdown), is retried for every operation; other 503s and network failures only for operations that
          are safe to send twice (reads, searches, <code>PUT</code> and <code>DELETE</code>), never for a write that may
          have happened. A <code>Retry-After</code> longer than the maximum is not waited for: the error is thrown at
          once. Set <code>retry: {'{ retries, baseDelayMs, maxDelayMs }'}</code> or <code>false</code> on the client or
          on a call.
        </li>
        <li>
          Each attempt has <code>timeoutMs</code> (30 s by default); every call takes a <code>signal</code> to cancel
          it. An NDJSON import has no time limit unless you give one, and is never retried: its source is read once.
        </li>
        <li>
          <code>documents.import</code> takes an array, a generator, an async iterable or a byte stream (a file), sends
          it as NDJSON in chunks and reads the server’s line-by-line answer while it sends, reporting{' '}
          <code>bytesSent</code>, <code>linesAnswered</code>, <code>written</code> and <code>failed</code> to{' '}
          <code>onProgress</code>.
        </li>
      </ul>

      <h2>LangChain JS: @godb/langchain</h2>
      <p>
        <code>GoDBVectorStore</code> is a LangChain <code>VectorStore</code> over a GoDB collection that holds your
        embeddings: <code>addDocuments</code>, <code>addVectors</code>, <code>similaritySearch</code> (with scores, by
        vector), <code>maxMarginalRelevanceSearch</code>, <code>delete({'{ ids, filter }'})</code>,{' '}
        <code>fromTexts</code>, <code>fromDocuments</code> and <code>asRetriever</code>. The collection is created on
        the first write with the embeddings’ size. Metadata filters (<code>{'{ topic: "search" }'}</code>,{' '}
        <code>$eq</code> … <code>$exists</code>, <code>$and</code>, <code>$or</code>, <code>$not</code>, nested keys
        with dots) become GoDB’s <code>{'{ must, should, must_not }'}</code> filters; GoDB’s own filter grammar is
        accepted as it is. Scores are GoDB’s: higher is more similar.
      </p>
      <pre aria-label="Install the LangChain vector store">
        <code>{`# not on npm yet: build it in a checkout of GoDB (as for @godb/client) and install it from there, with
# LangChain's core package beside it (a peer dependency: the store and your chains share one copy)
npm install /path/to/godb/integrations/langchain /path/to/godb/clients/typescript @langchain/core`}</code>
      </pre>
      <pre aria-label="LangChain quickstart" data-snippet="typescript">
        <code>{langchainQuickstart}</code>
      </pre>

      <h2>Qdrant clients and integrations</h2>
      <p>
        GoDB answers Qdrant’s REST API for what it can do, so code written for Qdrant (
        <code>@qdrant/js-client-rest</code>, LangChain’s <code>@langchain/qdrant</code>, LlamaIndex’s{' '}
        <code>@llamaindex/qdrant</code> and the tools built on them) works with a URL change: under <code>/qdrant</code>{' '}
        on the server’s port (
        <code>{`new QdrantClient({ url: 'http://localhost:8081', prefix: '/qdrant', apiKey })`}</code>), and at Qdrant’s
        own paths on <code>QDRANT_COMPAT_PORT</code> when it is set (<code>{`url: 'http://localhost:6333'`}</code>). The
        key is a GoDB API key, in Qdrant’s <code>api-key</code> header or as <code>Authorization: Bearer</code>; calls
        are scoped to its tenant and rate limited like every other. A point is a GoDB document of the collection: its id{' '}
        <code>{'<collection>:<point id>'}</code>, its payload the metadata, its vectors the collection’s own. A feature
        GoDB lacks answers Qdrant’s 400 naming it, never a silently different answer.
      </p>
      <table>
        <ColumnHeads names={['Endpoint', 'Supported', 'Notes']} />
        <tbody>
          {qdrantCompatibility.map((row) => (
            <tr key={row.endpoint}>
              <th scope="row">
                <code>{row.endpoint}</code>
              </th>
              <td>{row.supported}</td>
              <td>{row.notes}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>Accepted and ignored, since they only tune speed, memory or placement:</p>
      <ul>
        {qdrantIgnoredSettings.map((setting) => (
          <li key={setting}>{setting}</li>
        ))}
      </ul>

      <h2>Python</h2>
      <p>
        <code>godb</code> (in <code>clients/python</code>) uses the standard library only (<code>urllib</code>,{' '}
        <code>json</code>) and runs on Python 3.9 or later. One method per operation, grouped by category as in
        TypeScript, in snake_case: <code>client.documents.add</code>, <code>client.search.hybrid</code>,{' '}
        <code>client.collections.create</code>; path parameters are positional, body fields keyword arguments (or one
        dict). <code>documents.import_ndjson</code> streams an iterable of dicts and reports progress to{' '}
        <code>on_progress</code>; <code>documents.scroll_all</code> walks a whole collection. Failures raise{' '}
        <code>GoDBError</code> with <code>code</code>, <code>status</code>, <code>field</code> and{' '}
        <code>request_id</code>; 429 and 503 are retried with backoff, honouring <code>Retry-After</code>. Answers are
        typed (<code>TypedDict</code>s generated from the OpenAPI document’s components).
      </p>
      <pre aria-label="Install the Python client">
        <code>{pythonInstall}</code>
      </pre>
      <h3>Quickstart</h3>
      <p>
        Save as <code>quickstart.py</code> and run <code>python quickstart.py</code> in that environment against a
        running server:
      </p>
      <pre aria-label="Python quickstart" data-snippet="python">
        <code>{pythonQuickstart}</code>
      </pre>
    </>
  );
}

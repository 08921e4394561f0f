import { Link } from 'react-router';
import { paths } from '../../../config/paths';

export default function Introduction() {
  return (
    <>
      <p>
        GoDB is a vector database and search engine for AI applications. It stores documents, splits them into chunks,
        embeds them with local models, and answers text, vector, hybrid, geo, faceted, fuzzy, autocomplete, smart,
        multi-table, recommendation and graph queries — under one access model, for many tenants, from one process. By
        default GoDB runs as a single node, embedded in that process; a cluster mode on NATS JetStream, in preview,
        replicates writes across nodes.
      </p>
      <h2>Start in two commands</h2>
      <pre>
        <code>{`npm install && npm start    # site and API on http://localhost:8081, data in ./data
npm test                     # the whole suite`}</code>
      </pre>
      <h2>A first search</h2>
      <p>With the server running, paste this into a shell (it needs only curl and the Node.js GoDB runs on):</p>
      {/* data-snippet: a test runs every shell snippet of the site against a fresh server, as pasted. */}
      <pre data-snippet="shell">
        <code>{`# register a tenant and log in
curl -s -X POST localhost:8081/auth/register -H 'content-type: application/json' \\
  -d '{"email":"ada@example.com","password":"correct horse battery","tenant_id":"6f1c2a3e-8b4d-4c1e-9f7a-2d3b4c5e6f70"}'
TOKEN=$(curl -s -X POST localhost:8081/auth/login -H 'content-type: application/json' \\
  -d '{"email":"ada@example.com","password":"correct horse battery"}' \\
  | node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).token')

# store a document: it is chunked, embedded and indexed in one write
curl -s -X POST localhost:8081/api/v1/documents -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' \\
  -d '{"title":"Shock waves","content":"Interaction of shock waves with the boundary layer causes separation."}'

# search it by meaning and by words at once
curl -s -X POST localhost:8081/api/v1/search/hybrid -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' \\
  -d '{"query":"why does flow separate near a shock"}'`}</code>
      </pre>
      <h2>Where to go next</h2>
      <ul>
        <li>
          <Link to={paths.documentation.getHref('system-architecture')}>System Architecture</Link>: the layers and what
          happens on a write and a search.
        </li>
        <li>
          <Link to={paths.documentation.getHref('api-reference')}>API Reference</Link>: every endpoint, generated from
          the catalogue the server validates with.
        </li>
        <li>
          <Link to={paths.playground.getHref()}>API Playground</Link>: call the real server from your browser.
        </li>
        <li>
          <Link to={paths.documentation.getHref('deployment-guide')}>Deployment Guide</Link>: configuration,
          requirements and the release binary.
        </li>
      </ul>
      <p>
        GoDB is in beta, offered for evaluation and testing. Everything on these pages describes what the code does
        today; plans are marked as such.
      </p>
    </>
  );
}

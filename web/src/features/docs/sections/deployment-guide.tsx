import { ConfigSchema } from '@godb/contract/config-schema';
import { useState } from 'react';
import { BinaryRequestModal } from '../../../components/binary-request/binary-request-modal';
import { Button } from '../../../components/ui/button';

interface SettingSchema {
  readonly default?: unknown;
  readonly description?: string;
}

/** The sample configuration, straight from the server's configuration schema. */
export function sampleConfiguration(): string {
  return Object.entries(ConfigSchema.properties as Record<string, SettingSchema>)
    .map(([name, schema]) => `# ${schema.description ?? ''}\n${name}=${String(schema.default ?? '')}`)
    .join('\n\n');
}

export default function DeploymentGuide() {
  const [open, setOpen] = useState(false);
  return (
    <>
      <p>
        Run GoDB from source with two commands, or request the release binary: a tarball with the compiled server, the
        website and its dependencies that starts with one command on Node.js 20.
      </p>
      <Button size="lg" onClick={() => setOpen(true)}>
        Request Go DB Binary
      </Button>
      {open && <BinaryRequestModal onClose={() => setOpen(false)} />}
      <h2>System requirements</h2>
      <ul>
        <li>4+ cores</li>
        <li>8GB+ RAM</li>
        <li>SSD</li>
        <li>Node.js 20 or newer (Linux x64 for the release binary)</li>
      </ul>
      <h2>From source</h2>
      <pre>
        <code>{`npm install && npm start     # http://localhost:8081, data in ./data`}</code>
      </pre>
      <h2>From the release binary</h2>
      <pre>
        <code>{`tar -xzf godb-<version>.tar.gz && cd godb-<version>
node server/dist/main.js      # reads the environment below`}</code>
      </pre>
      <h2>Configuration</h2>
      <p>
        Environment variables, read once at start-up; an invalid value stops the server with a message naming the
        variable. Every default below comes from the server’s configuration schema.
      </p>
      <pre aria-label="Sample environment configuration">
        <code>{sampleConfiguration()}</code>
      </pre>
      <h2>Operations</h2>
      <ul>
        <li>
          <code>/healthz</code> (alive), <code>/readyz</code> (the store answers), <code>/metrics</code> (Prometheus).
        </li>
        <li>Logs are JSON lines (pino) with a request id; send SIGTERM for a graceful shutdown.</li>
        <li>
          Back up <code>DATA_DIR</code> while the server is stopped, or with SQLite’s online backup; index files are
          rebuilt if missing.
        </li>
        <li>Cluster mode (NATS JetStream) is planned; today GoDB runs as a single node.</li>
      </ul>
    </>
  );
}

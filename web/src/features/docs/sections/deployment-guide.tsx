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
        <li>
          Node.js 20.19 or newer, 22 recommended (Linux x64 for the release binary): on Node 20, npm warns EBADENGINE
          for three dependencies that declare Node 22, and they run on 20.19
        </li>
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
      <h2>Files in an S3 bucket</h2>
      <p>
        Files uploaded with documents (<code>file_content</code>) and the release archive behind the mailed download
        links are kept under <code>DATA_DIR/files</code> and <code>RELEASE_DIR</code> by default. With{' '}
        <code>STORAGE_PROVIDER=s3</code> they go to a bucket of AWS S3 or of any store with an S3 API (OpenStack Swift,
        MinIO, Ceph), so several servers can share them and <code>DATA_DIR</code> holds only the database:
      </p>
      <pre aria-label="S3 storage configuration">
        <code>{`STORAGE_PROVIDER=s3
S3_ENDPOINT=http://swift.internal:8080   # empty for AWS itself
S3_REGION=us-east-1
S3_BUCKET=godb-files                     # must exist
S3_PREFIX=production/                    # optional: share a bucket
S3_ACCESS_KEY_ID=…                       # empty: the AWS SDK's default credentials
S3_SECRET_ACCESS_KEY=…
S3_FORCE_PATH_STYLE=true                 # most stores other than AWS need it`}</code>
      </pre>
      <ul>
        <li>
          Start-up checks the bucket and stops with exit code 2 and one line saying what is wrong: an endpoint that
          cannot be reached, a bucket that does not exist, or keys the store refuses.
        </li>
        <li>
          Objects are kept under <code>files/&lt;tenant&gt;/&lt;document&gt;/</code> and <code>releases/</code>. Files
          larger than 5 MiB are uploaded in parts. Checksums are sent only where the S3 API requires them, so stores
          that refuse the AWS SDK’s newer aws-chunked uploads work too.
        </li>
        <li>
          A document’s file is downloaded at <code>GET /api/v1/documents/&#123;id&#125;/file</code> by whoever may read
          the document; each version keeps its own file. Deleting a document with <code>permanent=true</code> deletes
          its files; if the bucket cannot be reached then, they are deleted at the next purge or start.
        </li>
        <li>
          Signed download links work with either provider: a release archive built by one server is copied to the bucket
          and served from there by every server that shares it.
        </li>
      </ul>
      <h2>Backup: snapshots</h2>
      <p>
        A super admin takes a consistent snapshot of the whole node while it keeps serving reads and writes: the
        database (SQLite’s online backup) and the vector index files as of one point, with a manifest of every file’s
        size and SHA-256 checksum and the last write included. Writes acknowledged before the request are in it; later
        ones are not. Snapshots are kept under <code>DATA_DIR/snapshots</code>, or in the bucket’s{' '}
        <code>snapshots/</code> area with <code>STORAGE_PROVIDER=s3</code>.
      </p>
      <p>
        A tenant admin makes the same call and gets a snapshot of its tenant alone: the tenant’s documents (every
        version), chunks, vectors, access entries, collections and engagement as of one point, its HNSW index files and
        the files uploaded with its documents. Its text and geo indexes are rebuilt from those rows when it is restored.
        Users, groups and API keys are not in a tenant snapshot, so a restore never brings back a revoked key or an old
        password.
      </p>
      <pre aria-label="Snapshot endpoints">
        <code>{`POST   /api/v1/snapshots          202 {snapshot_id, job_id}: GET /api/v1/jobs/<job_id> shows the progress
GET    /api/v1/snapshots          the snapshots, newest first, each with its manifest
GET    /api/v1/snapshots/<id>     the snapshot's archive (a tar), to keep elsewhere
DELETE /api/v1/snapshots/<id>     removes it
POST   /api/v1/snapshots/upload   a downloaded archive (Content-Type: application/x-tar), checked and stored
POST   /api/v1/snapshots/restore  {"snapshot_id": "<id>"}: 202 {job_id}, see below`}</code>
      </pre>
      <p>
        They need an admin’s token. A tenant admin sees, downloads, uploads, deletes and restores only its tenant’s
        snapshots (another tenant’s are not found); the super admin sees every snapshot, whole-node and tenant ones. An
        uploaded archive is checked before it is stored (a damaged one answers 400 <code>SNAPSHOT_CORRUPT</code>) and
        keeps its id; the index files of one a tenant admin uploaded are rebuilt at restore rather than loaded.
      </p>
      <p>
        How long it takes, measured at 1,000,000 documents on a shared 2-core machine: a whole-node snapshot of a live
        server 14 s and <code>godb restore</code> 5 s (64-dimension vectors, <code>npm run bench:snapshot</code>); with
        512-dimension vectors and 60 words each (6.3 GB), a tenant snapshot 2 minutes and its restore on the live server
        2.5 minutes (<code>npm run bench:scale</code>). Restored HNSW indexes are loaded as they are: no restore pays
        the 8 to 17 minutes of building them again.
      </p>
      <h2>Restore on a running server</h2>
      <ul>
        <li>
          <strong>A tenant</strong>: its admin (or the super admin) restores one of its snapshots with{' '}
          <code>POST /api/v1/snapshots/restore</code>. The tenant’s data is replaced by the snapshot’s in short
          transactions of about 40 ms each (at most <code>RESTORE_SLICE_ROWS</code> rows), so every other tenant keeps
          reading and writing throughout. Meanwhile the tenant’s own documents, collections and searches answer 503{' '}
          <code>TENANT_RESTORING</code> rather than show half of it (its jobs, snapshots and accounts still answer), and
          the restore first waits for the tenant’s requests and imports under way, at most{' '}
          <code>RESTORE_DRAIN_TIMEOUT_MS</code>: then the job fails with <code>RESTORE_DRAIN_TIMEOUT</code>, naming what
          still runs, and the tenant is left as it was. A restore that fails part way is tried again after 1, 4 and 16
          seconds; if it still fails (job error <code>RESTORE_INTERRUPTED</code>) the tenant stays unavailable until you
          restore it again, which finishes it without a restart. A restore cut short by a crash is finished when the
          server starts. Writes the tenant made after the snapshot are gone once the job is done.
        </li>
        <li>
          <strong>A whole node</strong>: the super admin restores a whole-node snapshot into a running node that holds
          no tenant and no document yet (a fresh server on the same bucket, or with the archive copied into its{' '}
          <code>DATA_DIR/snapshots</code>); a node with data answers 409 <code>SNAPSHOT_NODE_NOT_EMPTY</code>. Its
          tenants, users and API keys come back; the super admin stays the one of the environment.
        </li>
        <li>
          Every file is checked against the manifest before anything changes: a damaged snapshot answers 400{' '}
          <code>SNAPSHOT_CORRUPT</code> and nothing is restored. The job then puts the uploaded files back and replaces
          the rows.
        </li>
        <li>
          Document and chunk sequence numbers are kept, so the snapshot’s HNSW files match their rows and are loaded as
          they are (the collection info shows <code>loaded_from: &quot;file&quot;</code>). Restoring a tenant on another
          node whose documents already use some of those numbers renumbers its rows instead, and its vector indexes are
          then rebuilt from them in the background.
        </li>
      </ul>
      <h2>Restore before start</h2>
      <p>
        Restore a whole-node snapshot before the server starts, into an empty <code>DATA_DIR</code> (the same
        environment as the server, so with <code>STORAGE_PROVIDER=s3</code> a snapshot id is read from the bucket):
      </p>
      <pre aria-label="Restore commands">
        <code>{`DATA_DIR=/srv/godb npm run restore -- snap.tar        # a downloaded archive
DATA_DIR=/srv/godb npm run restore -- snap-20261123T230501Z-1a2b3c4d   # an id in the snapshot store
DATA_DIR=/srv/godb npm run restore -- s3://backups/godb/snap.tar   # any object the S3_* settings can read
node server/dist/restore-main.js snap.tar             # the same, from the release binary`}</code>
      </pre>
      <ul>
        <li>
          Every file is checked against the manifest first; a snapshot that fails a size or checksum is refused with a
          message naming the file (exit code 1), and the data folder is left as it was, never half-restored.
        </li>
        <li>A data folder that already holds a database is refused: a restore never mixes two nodes’ data.</li>
        <li>
          The restored index files are used as they are (their recorded generation matches the restored database), so
          the server answers searches at once, without a rebuild.
        </li>
        <li>
          Files uploaded with documents are in the snapshot too, and are restored into the configured storage provider (
          <code>DATA_DIR/files</code> or the bucket).
        </li>
        <li>A tenant snapshot is refused here: it restores on a running server.</li>
      </ul>
      <h2>Operations</h2>
      <ul>
        <li>
          <code>/healthz</code> (alive), <code>/readyz</code> (the store answers), <code>/metrics</code> (Prometheus).
        </li>
        <li>Logs are JSON lines (pino) with a request id; send SIGTERM for a graceful shutdown.</li>
        <li>
          Back up with snapshots (above) while the server runs, or copy <code>DATA_DIR</code> while it is stopped; index
          files are rebuilt if missing.
        </li>
      </ul>
      <h2>Cluster mode (preview)</h2>
      <ul>
        <li>
          <strong>Start.</strong> Give every node the same <code>NATS_URL</code> (a NATS JetStream cluster) and{' '}
          <code>JWT_SECRET</code>, and its own <code>NODE_ID</code>; <code>npm run cluster:local</code> starts three
          NATS servers and three nodes to try it.
        </li>
        <li>
          <strong>What is replicated.</strong> Registration, users, groups, permissions, API keys, documents (with their
          visibility, ACLs and engagement, and deletes by filter), collections, index maintenance, jobs, mail and
          snapshot restores are replicated. Files uploaded with documents and the snapshots users take are kept where
          every node reads them (the JetStream object store, or the S3 bucket with <code>STORAGE_PROVIDER=s3</code>), so
          any node serves them; mail is relayed by the lease holder only.
        </li>
        <li>
          <strong>The log</strong> is <code>CLUSTER_SHARDS</code> (16) shard streams, <code>godb-shard-00</code> and on:
          the directory, jobs and mail on shard 0, each tenant&apos;s data on the shard the KV bucket{' '}
          <code>godb-shards</code> fixed on its first write. The count is fixed when the cluster is made; a node
          configured with another one refuses to start, as does a data folder of the earlier single-stream version
          (start it on an empty <code>DATA_DIR</code>).
        </li>
        <li>
          <strong>Retries and catch-up.</strong> Retry a replicated write that answered 503 (
          <code>CLUSTER_UNAVAILABLE</code>, <code>CLUSTER_LAGGING</code>) with the <code>Idempotency-Key</code> header
          it was sent with: within two minutes, on any node, it is applied once. A node that starts behind the log
          listens at once and answers its API with 503 <code>CLUSTER_CATCHING_UP</code> until it has replayed what it
          missed (<code>/readyz</code> says how far it is). A node that cannot apply an operation (a full disk) stops
          before it, retries it, and answers 503 on <code>/readyz</code> with <code>cluster.halted_shard</code> and{' '}
          <code>cluster.halted_at_seq</code> until it succeeds. <code>/readyz</code> <code>cluster.shards</code> and the{' '}
          <code>shard</code> label of <code>godb_cluster_lag_operations</code> give the lag of each shard.
        </li>
        <li>
          <strong>Singleton work.</strong> One node at a time, the holder of a lease in JetStream KV (another node takes
          it within <code>CLUSTER_LEASE_TTL_MS</code> when it dies), takes a cluster snapshot every{' '}
          <code>CLUSTER_SNAPSHOT_EVERY_OPS</code> operations or <code>CLUSTER_SNAPSHOT_EVERY_MIN</code> minutes into the
          JetStream object store (or the S3 bucket with <code>STORAGE_PROVIDER=s3</code>), checks it by reading it back,
          keeps the last two and truncates each shard below both the newest and the slowest node heard from within{' '}
          <code>CLUSTER_NODE_GONE_S</code>. A new or wiped node, or one away so long that the log was truncated past it,
          restores the newest snapshot before it opens (<code>/readyz</code> says{' '}
          <code>cluster.restoring_snapshot</code>; old data is moved to <code>DATA_DIR/replaced-&lt;time&gt;</code>),
          then replays the log after it.
        </li>
        <li>
          <strong>Durability.</strong> What an acknowledged write survives: it is on a majority of the NATS servers and
          committed to the answering node&apos;s SQLite. nats-server 2.9 (Debian bookworm) writes streams to disk but
          syncs them on a 2-minute timer, so a power loss of every NATS server at once can lose the last two minutes of
          the log; the loss of one server, or of processes, loses nothing. nats-server 2.10 or newer with{' '}
          <code>sync_interval: always</code> in its <code>jetstream</code> block syncs every write before acknowledging
          it, and then an acknowledgement also survives a power loss of every server. GoDB logs the server version at
          start and refuses a server older than 2.9; with <code>NATS_SYNC_ALWAYS=true</code> (servers set up so) it
          refuses one older than 2.10, which would ignore the setting. A running node checks the same way the NATS
          servers that join the cluster or come back, and the server it reconnects to: while one fails (older than 2.10
          with <code>NATS_SYNC_ALWAYS=true</code>, or a server it reconnected to older than 2.9), it refuses writes with
          503 <code>CLUSTER_NOT_DURABLE</code> and its <code>/readyz</code> answers 503 naming the server; reads
          continue.
        </li>
      </ul>
    </>
  );
}

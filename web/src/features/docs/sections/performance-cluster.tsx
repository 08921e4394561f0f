import cluster from '../../../../../bench/results/cluster.json';
import { Machine, Table, type Rows } from '../bench-results';

const results = cluster.results;

/** Cluster mode (bench:cluster): three nodes on NATS JetStream beside one embedded node, on the same machine. */
export function ClusterSection() {
  return (
    <>
      <h2>Cluster mode: three nodes on NATS JetStream</h2>
      <p>
        <code>npm run bench:cluster</code>: three <code>nats-server</code> processes (16 JetStream shard streams, each
        replicated three times) and three GoDB nodes on loopback, beside one embedded GoDB node without NATS;{' '}
        {results.clients} clients for {results.seconds} seconds a measurement, {results.dims}-dimensional vectors given
        by the client. Every process shares the same two cores, so the cluster’s figures show what the replicated log
        costs, not what three machines hold: a write is acknowledged once NATS stored it on a majority and the node that
        took it applied it.
      </p>
      <h3>Acknowledged writes and searches per second</h3>
      <Table rows={results.throughput as Rows} />
      <h3>Replica lag: acknowledged on one node, readable on another</h3>
      <Table rows={[results.lag] as Rows} />
      <h3>Failover: the leader of the tenant’s shard stream killed (SIGKILL) during writes</h3>
      <Table rows={[results.failover] as Rows} />
      <h3>Catch-up of a node that missed {results.catch_up.documents.toLocaleString('en')} documents</h3>
      <Table rows={results.catch_up.rows as Rows} />
      <Machine machine={cluster.machine} />
    </>
  );
}

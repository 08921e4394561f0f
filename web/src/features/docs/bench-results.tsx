import { ColumnHeads } from './column-heads';

/** The pieces every benchmark section of the Performance page shows: the machine a run used and its result rows. */
export type Rows = Record<string, string | number>[];

export const num = (v: string | number | undefined) => Number(v ?? 0);

export interface BenchMachine {
  cpus: number;
  cpu_model: string;
  memory_gib: number;
  node: string;
  date: string;
}

export function Machine({ machine }: { machine: BenchMachine }) {
  return (
    <p style={{ fontSize: 14, color: 'var(--color-text-muted)' }}>
      Measured on {machine.cpus} cores ({machine.cpu_model}), {machine.memory_gib} GiB, Node {machine.node},{' '}
      {machine.date.slice(0, 10)}. A shared, noisy machine: compare ratios within one run.
    </p>
  );
}

export function Table({ rows }: { rows: Rows }) {
  // Every column any row has, in the order they first appear: runs saved by an older bench lack newer columns.
  const headers = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  return (
    <table>
      <ColumnHeads names={headers} />
      <tbody>
        {rows.map((row, i) => (
          <tr key={i}>
            {headers.map((h) => (
              <td key={h}>{row[h] ?? '—'}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

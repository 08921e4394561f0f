/**
 * A documentation table's header row: one column header per name, in order.
 *
 * @example <table><ColumnHeads names={['Name', 'Type']} /><tbody>…</tbody></table>
 */
export function ColumnHeads({ names }: { names: readonly string[] }) {
  return (
    <thead>
      <tr>
        {names.map((name) => (
          <th key={name} scope="col">
            {name}
          </th>
        ))}
      </tr>
    </thead>
  );
}

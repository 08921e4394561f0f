import { ColumnHeads } from '../column-heads';

const cases: [string, string, string][] = [
  [
    'Retrieval-augmented generation',
    'Chunk manuals and tickets, retrieve the passages that answer a question with hybrid search, and cite the chunk ids.',
    'search/hybrid, documents, chunks',
  ],
  [
    'Semantic site search',
    'A search box with autocomplete, typo tolerance and facets over a product catalogue.',
    'search/autocomplete, search/fuzzy, search/faceted',
  ],
  [
    'Enterprise knowledge base',
    'Private and shared documents per team, with ACLs that expire, for many customers on one server.',
    'visibility, acl, groups, tenants',
  ],
  [
    'Location-aware discovery',
    'Places and listings near the user, ranked by meaning and distance.',
    'search/geo, search/vector with combine_location_score',
  ],
  [
    'Recommendations and engagement',
    'Record clicks, likes and dwell time; re-rank results by what users engage with.',
    'engagement, search/hybrid use_ml_ranking',
  ],
  [
    'Catalogue joins',
    'Search papers and join them to their authors or datasets by a shared key.',
    'search/multi-table',
  ],
];

export default function UseCases() {
  return (
    <>
      <p>What teams build on GoDB, and the parts of the API each one uses.</p>
      <table>
        <ColumnHeads names={['Use case', 'How', 'API']} />
        <tbody>
          {cases.map(([name, how, api]) => (
            <tr key={name}>
              <th scope="row">{name}</th>
              <td>{how}</td>
              <td>
                <code>{api}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

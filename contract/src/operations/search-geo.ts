import { defineOperation } from '../define-operation.js';
import { GeoSearchRequest, SearchResponse } from '../schemas/search.js';
import { exampleGeoResponse } from './search-example.js';

export const searchGeo = defineOperation({
  id: 'search-geo',
  name: 'Geo Search',
  category: 'search',
  summary: 'Documents within a radius',
  description:
    'Documents whose location lies within `radius` kilometres of (lat, lon), nearest first, with their distance.',
  http: { method: 'POST', path: '/api/v1/search/geo', aliases: ['/search/geo'] },
  access: 'user',
  body: GeoSearchRequest,
  success: { status: 200, schema: SearchResponse, description: 'Ranked results.' },
  errors: [],
  examples: [
    {
      summary: 'Documents within a radius',
      body: { lat: 52.52, lon: 13.405, radius: 25, limit: 10 },
      response: { status: 200, body: exampleGeoResponse },
    },
  ],
  playground: {
    hints: { primary_table: { placeholder: 'Optional: documents' }, field_name: { placeholder: 'location' } },
  },
});

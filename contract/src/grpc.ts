/**
 * The gRPC interface (api-spec §7 "gRPC") as data: the documentation's gRPC reference renders it, and
 * `renderProto()` writes contract/proto/godb.proto from it (a test fails when the checked-in file differs).
 */
export interface GrpcField {
  readonly name: string;
  readonly type: string;
  readonly number: number;
  readonly repeated?: boolean;
  /** Presence is tracked, so an explicit 0 differs from "not given" (which takes the REST default). */
  readonly optional?: boolean;
  readonly description: string;
}

export interface GrpcMessage {
  readonly name: string;
  readonly description: string;
  readonly fields: readonly GrpcField[];
}

export interface GrpcMethod {
  readonly name: string;
  readonly description: string;
  readonly request: string;
  readonly response: string;
  /** The REST operation whose use case serves it. */
  readonly operationId: string;
  /** The client sends a stream of requests, answered once at the end (`rpc M(stream Request)`). */
  readonly clientStreaming?: boolean;
}

export interface GrpcService {
  readonly name: string;
  readonly description: string;
  readonly methods: readonly GrpcMethod[];
}

export const grpcPackage = 'godb.v1';

const roles = (n: number): GrpcField[] => [
  {
    name: 'roles',
    type: 'string',
    number: n,
    repeated: true,
    description: 'Narrows the search to what these roles may see (never widens the token).',
  },
  {
    name: 'groups',
    type: 'string',
    number: n + 1,
    repeated: true,
    description: 'Narrows the search to these groups of the caller (never widens the token).',
  },
];

export const grpcMessages: readonly GrpcMessage[] = [
  {
    name: 'TextSearchRequest',
    description: 'Full-text search (BM25).',
    fields: [
      { name: 'query', type: 'string', number: 1, description: 'Required.' },
      { name: 'offset', type: 'int32', number: 2, description: 'Results to skip.' },
      { name: 'limit', type: 'int32', number: 3, description: 'Results to return (default 10).' },
      { name: 'filters', type: 'string', number: 4, description: 'JSON: a list of {field, operator, value}.' },
      ...roles(5),
    ],
  },
  {
    name: 'VectorSearchRequest',
    description: 'Nearest neighbours by embedding.',
    fields: [
      { name: 'vector', type: 'float', number: 1, repeated: true, description: 'The query vector.' },
      { name: 'offset', type: 'int32', number: 2, description: 'Results to skip.' },
      { name: 'limit', type: 'int32', number: 3, description: 'Results to return (default 10).' },
      { name: 'filters', type: 'string', number: 4, description: 'JSON: a list of {field, operator, value}.' },
      {
        name: 'similarity_method',
        type: 'string',
        number: 5,
        description: 'Similarity: cosine (default), euclidean or dot.',
      },
      { name: 'threshold', type: 'float', number: 6, optional: true, description: '0 to 1 (default 0.7).' },
      { name: 'primary_table', type: 'string', number: 7, description: 'Restrict to one primary table.' },
      {
        name: 'embedding_options',
        type: 'EmbeddingOptions',
        number: 8,
        description: 'The model the vector belongs to.',
      },
      { name: 'center', type: 'GeoPoint', number: 9, description: 'With radius: a geo restriction.' },
      { name: 'radius', type: 'double', number: 10, description: 'Kilometres.' },
      { name: 'combine_location_score', type: 'bool', number: 11, description: 'Blend proximity into the score.' },
      ...roles(12),
      {
        name: 'vector_name',
        type: 'string',
        number: 14,
        description: 'One of the collection’s vectors (needs primary_table); default: its default vector.',
      },
    ],
  },
  {
    name: 'HybridSearchRequest',
    description: 'Text and vector search fused.',
    fields: [
      {
        name: 'query',
        type: 'string',
        number: 1,
        description: 'The text side (and, without vector, the embedded query).',
      },
      { name: 'vector', type: 'float', number: 2, repeated: true, description: 'Optional query vector.' },
      {
        name: 'alpha',
        type: 'float',
        number: 3,
        optional: true,
        description: 'Weight of the vector side, 0 to 1 (default 0.3).',
      },
      { name: 'offset', type: 'int32', number: 4, description: 'Results to skip.' },
      { name: 'limit', type: 'int32', number: 5, description: 'Results to return (default 10).' },
      {
        name: 'filters',
        type: 'string',
        number: 6,
        description: 'JSON: a list of {field, operator, value}, or a group {must, should, must_not}.',
      },
      ...roles(7),
      { name: 'primary_table', type: 'string', number: 9, description: 'Restrict to one collection.' },
      {
        name: 'vector_name',
        type: 'string',
        number: 10,
        description: 'One of the collection’s vectors for the vector side (needs primary_table).',
      },
    ],
  },
  {
    name: 'GeoPoint',
    description: 'A point in degrees.',
    fields: [
      { name: 'lat', type: 'double', number: 1, description: 'Latitude.' },
      { name: 'lon', type: 'double', number: 2, description: 'Longitude.' },
    ],
  },
  {
    name: 'EmbeddingOptions',
    description: 'Which model a query vector belongs to.',
    fields: [
      { name: 'model', type: 'string', number: 1, description: 'Model name.' },
      { name: 'model_name', type: 'string', number: 2, description: 'Alias of model.' },
    ],
  },
  {
    name: 'Chunk',
    description: 'A chunk of a result document.',
    fields: [
      { name: 'id', type: 'string', number: 1, description: 'The chunk id: <document id>#<chunk index>.' },
      { name: 'content', type: 'string', number: 2, description: 'The chunk text.' },
      { name: 'type', type: 'string', number: 3, description: 'The chunk type: text.' },
      { name: 'score', type: 'double', number: 4, description: 'The chunk’s score.' },
    ],
  },
  {
    name: 'SearchResult',
    description: 'One document found.',
    fields: [
      { name: 'document_id', type: 'string', number: 1, description: 'The document id.' },
      { name: 'title', type: 'string', number: 2, description: 'Its title.' },
      { name: 'chunks', type: 'Chunk', number: 3, repeated: true, description: 'The chunks that matched, best first.' },
      { name: 'metadata', type: 'map<string, string>', number: 4, description: 'Its metadata, values as text.' },
      { name: 'score', type: 'double', number: 5, description: 'The document’s score.' },
    ],
  },
  {
    name: 'SearchResponse',
    description: 'The results of a search.',
    fields: [
      { name: 'results', type: 'SearchResult', number: 1, repeated: true, description: 'Results, best first.' },
      { name: 'total_hits', type: 'int32', number: 2, description: 'Documents matching.' },
      { name: 'time_taken', type: 'double', number: 3, description: 'Milliseconds in the engine.' },
    ],
  },
  {
    name: 'GetUserRequest',
    description: 'A user of the caller’s tenant.',
    fields: [{ name: 'user_id', type: 'string', number: 1, description: 'The user id.' }],
  },
  {
    name: 'GetUserResponse',
    description: 'The user.',
    fields: [
      { name: 'id', type: 'string', number: 1, description: 'User id.' },
      { name: 'email', type: 'string', number: 2, description: 'E-mail address.' },
      { name: 'roles', type: 'string', number: 3, repeated: true, description: 'Its role.' },
      { name: 'groups', type: 'string', number: 4, repeated: true, description: 'Its group ids.' },
    ],
  },
  {
    name: 'CreateGroupRequest',
    description: 'A new group in the caller’s tenant.',
    fields: [
      { name: 'name', type: 'string', number: 1, description: 'Unique in the tenant.' },
      { name: 'description', type: 'string', number: 2, description: 'Free text.' },
    ],
  },
  {
    name: 'ImportDocumentsRequest',
    description: 'One line of a streamed import: a document, as an NDJSON import line.',
    fields: [
      {
        name: 'line',
        type: 'string',
        number: 1,
        description:
          'A document as JSON, with the fields of a single add (vectors included), as one line of POST /api/v1/documents/import.',
      },
      {
        name: 'batch_size',
        type: 'int32',
        number: 2,
        description: 'Lines written per transaction (default 500), read from the first message.',
      },
    ],
  },
  {
    name: 'ImportLineResult',
    description: 'What became of one line.',
    fields: [
      { name: 'line', type: 'int32', number: 1, description: 'The message’s number in the stream, from 1.' },
      { name: 'success', type: 'bool', number: 2, description: 'Whether the document was written.' },
      { name: 'document_id', type: 'string', number: 3, description: 'Its id, when written.' },
      { name: 'error_code', type: 'string', number: 4, description: 'The catalogue error code, when not.' },
      { name: 'error_message', type: 'string', number: 5, description: 'What was wrong and how to fix it.' },
      { name: 'field', type: 'string', number: 6, description: 'The field at fault (line[N].field), if any.' },
    ],
  },
  {
    name: 'ImportDocumentsResponse',
    description: 'The result of each line of a streamed import.',
    fields: [
      {
        name: 'results',
        type: 'ImportLineResult',
        number: 1,
        repeated: true,
        description: 'One per line, in order.',
      },
      { name: 'written', type: 'int32', number: 2, description: 'Documents written.' },
      { name: 'failed', type: 'int32', number: 3, description: 'Lines refused (the others were written).' },
    ],
  },
  {
    name: 'CreateGroupResponse',
    description: 'The group created.',
    fields: [
      { name: 'group_id', type: 'string', number: 1, description: 'Its id.' },
      { name: 'message', type: 'string', number: 2, description: 'What happened.' },
    ],
  },
];

export const grpcServices: readonly GrpcService[] = [
  {
    name: 'SearchService',
    description: 'Text, vector and hybrid search, with the same validation, access rules and errors as REST.',
    methods: [
      {
        name: 'TextSearch',
        description: 'Full-text search ranked by BM25.',
        request: 'TextSearchRequest',
        response: 'SearchResponse',
        operationId: 'search-text',
      },
      {
        name: 'VectorSearch',
        description: 'Nearest neighbours by embedding (HNSW, exact rescoring).',
        request: 'VectorSearchRequest',
        response: 'SearchResponse',
        operationId: 'search-vector',
      },
      {
        name: 'HybridSearch',
        description: 'Text and vector search fused by alpha.',
        request: 'HybridSearchRequest',
        response: 'SearchResponse',
        operationId: 'search-hybrid',
      },
    ],
  },
  {
    name: 'AdminService',
    description: 'Tenant administration; needs the admin role.',
    methods: [
      {
        name: 'GetUser',
        description: 'Reads a user of the caller’s tenant.',
        request: 'GetUserRequest',
        response: 'GetUserResponse',
        operationId: 'get-user',
      },
      {
        name: 'CreateGroup',
        description: 'Creates a group in the caller’s tenant.',
        request: 'CreateGroupRequest',
        response: 'CreateGroupResponse',
        operationId: 'create-group',
      },
    ],
  },
  {
    name: 'DocumentService',
    description: 'Writing documents; the same validation, access rules and errors as REST.',
    methods: [
      {
        name: 'ImportDocuments',
        description:
          'Streams documents in, one per message, written in transactions of batch_size like the NDJSON import; a bad line never aborts the good ones.',
        request: 'ImportDocumentsRequest',
        response: 'ImportDocumentsResponse',
        operationId: 'import-documents',
        clientStreaming: true,
      },
    ],
  },
];

/** The .proto text of the interface. */
export function renderProto(): string {
  const lines = [
    '// Generated from contract/src/grpc.ts by `npm run proto -w contract`: do not edit by hand.',
    'syntax = "proto3";',
    '',
    `package ${grpcPackage};`,
    '',
  ];
  for (const service of grpcServices) {
    lines.push(`// ${service.description}`, `service ${service.name} {`);
    for (const m of service.methods)
      lines.push(
        `  // ${m.description}`,
        `  rpc ${m.name}(${m.clientStreaming ? 'stream ' : ''}${m.request}) returns (${m.response});`,
      );
    lines.push('}', '');
  }
  for (const message of grpcMessages) {
    lines.push(`// ${message.description}`, `message ${message.name} {`);
    for (const f of message.fields) {
      const label = f.repeated ? 'repeated ' : f.optional ? 'optional ' : '';
      lines.push(`  // ${f.description}`, `  ${label}${f.type} ${f.name} = ${f.number};`);
    }
    lines.push('}', '');
  }
  return lines.join('\n');
}

import { Type, type TObject } from '@sinclair/typebox';
import { grpcFieldNumbers } from './grpc-field-numbers.js';
import { deriveMessages, type FieldNumbers, type GrpcMessage, type MessageSource } from './grpc-messages.js';
import { createGroup } from './operations/create-group.js';
import { getUser } from './operations/get-user.js';
import { ClusterView } from './schemas/cluster.js';
import { importDocuments } from './operations/import-documents.js';
import { searchHybrid } from './operations/search-hybrid.js';
import { searchQuery } from './operations/search-query.js';
import { searchText } from './operations/search-text.js';
import { searchVector } from './operations/search-vector.js';
import { inputLimits } from './schemas/common.js';
import { QueryResponse } from './schemas/query.js';
import { SearchResponse } from './schemas/search.js';

export type { GrpcField, GrpcMessage } from './grpc-messages.js';

/**
 * The gRPC interface (api-spec §7 "gRPC") as data: each method names the operation whose use case serves it and
 * the TypeBox schemas its messages carry (for the searches, the REST request body itself). The messages are derived
 * from those schemas (grpc-messages.ts); the documentation's gRPC reference renders them and `renderProto()`
 * writes contract/proto/godb.proto (a test fails when the checked-in file differs).
 */
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

interface MethodSource extends Omit<GrpcMethod, 'request' | 'response'> {
  readonly request: MessageSource;
  readonly response: MessageSource;
}

/**
 * What a gRPC search adds to its REST body: a window (REST has no offset) and the spec's roles and groups, which
 * only narrow the token. The transport uses these; every other field is the REST body.
 */
export const GrpcSearchExtras = Type.Object({
  offset: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: inputLimits.count,
      default: 0,
      description: 'Results to skip: the answer holds results offset+1 to offset+limit.',
    }),
  ),
  roles: Type.Optional(
    Type.Array(Type.String(), {
      description: 'Narrows the search to what these roles may see (never widens the token).',
    }),
  ),
  groups: Type.Optional(
    Type.Array(Type.String(), {
      description: 'Narrows the search to these groups of the caller (never widens the token).',
    }),
  ),
});

/** What the query pipeline adds to its REST body over gRPC: the narrowing of the other searches (offset is its own). */
export const GrpcNarrowing = Type.Object({
  roles: GrpcSearchExtras.properties.roles,
  groups: GrpcSearchExtras.properties.groups,
});

/** GetUser's answer as the specification gives it (REST answers `{user}` with one role). */
export const GrpcUser = Type.Object({
  id: Type.String({ description: 'User id.' }),
  email: Type.String({ description: 'E-mail address.' }),
  roles: Type.Array(Type.String(), { description: 'Its role.' }),
  groups: Type.Array(Type.String(), { description: 'Its group ids.' }),
});

/** What became of one line of a streamed import (the NDJSON import's line result, its error flattened). */
export const ImportLineResult = Type.Object({
  line: Type.Integer({
    minimum: 1,
    maximum: inputLimits.count,
    description: 'The message’s number in the stream, from 1.',
  }),
  success: Type.Boolean({ description: 'Whether the document was written.' }),
  document_id: Type.Optional(Type.String({ description: 'Its id, when written.' })),
  error_code: Type.Optional(Type.String({ description: 'The catalogue error code, when not.' })),
  error_message: Type.Optional(Type.String({ description: 'What was wrong and how to fix it.' })),
  field: Type.Optional(Type.String({ description: 'The field at fault (line[N].field), if any.' })),
});

const importQuery = importDocuments.query as TObject;
const searchResponse: MessageSource = {
  name: 'SearchResponse',
  description: 'The results of a search.',
  parts: [SearchResponse],
};
/** Query vectors travel as packed floats (4 bytes a dimension), as the index stores them. */
const floatVector = { vector: { type: 'repeated float', description: 'The query vector; or give `query`.' } };

const sources: readonly { name: string; description: string; methods: readonly MethodSource[] }[] = [
  {
    name: 'SearchService',
    description: 'Text, vector and hybrid search, with the same validation, access rules and errors as REST.',
    methods: [
      {
        name: 'TextSearch',
        description: 'Full-text search ranked by BM25.',
        request: {
          name: 'TextSearchRequest',
          description: 'Full-text search (BM25): the REST body, a window and narrowing.',
          parts: [searchText.body, GrpcSearchExtras],
        },
        response: searchResponse,
        operationId: 'search-text',
      },
      {
        name: 'VectorSearch',
        description: 'Nearest neighbours by embedding (HNSW, exact rescoring).',
        request: {
          name: 'VectorSearchRequest',
          description: 'Nearest neighbours by embedding: the REST body, a window and narrowing.',
          parts: [searchVector.body, GrpcSearchExtras],
          wireTypes: { ...floatVector, threshold: { type: 'float' } },
        },
        response: searchResponse,
        operationId: 'search-vector',
      },
      {
        name: 'HybridSearch',
        description: 'Text and vector search fused by alpha.',
        request: {
          name: 'HybridSearchRequest',
          description: 'Text and vector search fused: the REST body, a window and narrowing.',
          parts: [searchHybrid.body, GrpcSearchExtras],
          wireTypes: { ...floatVector, alpha: { type: 'float' } },
        },
        response: searchResponse,
        operationId: 'search-hybrid',
      },
      {
        name: 'Query',
        description: 'The query pipeline: candidate stages fused or rescored, then formula, MMR and group_by.',
        request: {
          name: 'QueryRequest',
          description: 'The query pipeline: the REST body (its own offset) and narrowing.',
          parts: [searchQuery.body, GrpcNarrowing],
        },
        response: { name: 'QueryResponse', description: 'The results of a query pipeline.', parts: [QueryResponse] },
        operationId: 'search-query',
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
        request: { name: 'GetUserRequest', description: 'A user of the caller’s tenant.', parts: [getUser.params] },
        response: { name: 'GetUserResponse', description: 'The user.', parts: [GrpcUser] },
        operationId: 'get-user',
      },
      {
        name: 'CreateGroup',
        description: 'Creates a group in the caller’s tenant.',
        request: {
          name: 'CreateGroupRequest',
          description: 'A new group in the caller’s tenant.',
          parts: [createGroup.body],
        },
        response: {
          name: 'CreateGroupResponse',
          description: 'The group created.',
          parts: [createGroup.success.schema],
        },
        operationId: 'create-group',
      },
      {
        name: 'GetCluster',
        description: 'The nodes, the shard streams and this node’s place in each (GET /api/v1/cluster).',
        request: { name: 'GetClusterRequest', description: 'Nothing to give.', parts: [Type.Object({})] },
        response: {
          name: 'GetClusterResponse',
          description: 'The cluster as this node sees it.',
          parts: [ClusterView],
        },
        operationId: 'get-cluster',
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
        request: {
          name: 'ImportDocumentsRequest',
          description: 'One line of a streamed import: a document, as an NDJSON import line.',
          parts: [
            Type.Object({
              line: Type.String({
                description:
                  'A document as JSON, with the fields of a single add (vectors included), as one line of POST /api/v1/documents/import.',
              }),
              batch_size: Type.Optional(
                Type.Unsafe({
                  ...importQuery.properties.batch_size,
                  description: 'Lines written per transaction (default 500), read from the first message.',
                }),
              ),
            }),
          ],
        },
        response: {
          name: 'ImportDocumentsResponse',
          description: 'The result of each line of a streamed import.',
          parts: [
            Type.Object({
              results: Type.Array(ImportLineResult, { description: 'One per line, in order.' }),
              written: Type.Integer({ minimum: 0, description: 'Documents written.' }),
              failed: Type.Integer({ minimum: 0, description: 'Lines refused (the others were written).' }),
            }),
          ],
        },
        operationId: 'import-documents',
        clientStreaming: true,
      },
    ],
  },
];

/** Names for nested objects that are not among the shared schemas (contract/src/schemas/). */
const nestedNames = { ImportLineResult };

/** The messages with the given field numbers (the committed ones unless a test passes others). */
export function grpcMessagesWith(numbers: FieldNumbers): GrpcMessage[] {
  return deriveMessages(
    sources.flatMap((s) => s.methods.flatMap((m) => [m.request, m.response])),
    numbers,
    nestedNames,
  );
}

export const grpcMessages: readonly GrpcMessage[] = grpcMessagesWith(grpcFieldNumbers);

export const grpcServices: readonly GrpcService[] = sources.map((s) => ({
  ...s,
  methods: s.methods.map((m) => ({ ...m, request: m.request.name, response: m.response.name })),
}));

/** The .proto text of the interface. */
export function renderProto(messages: readonly GrpcMessage[] = grpcMessages): string {
  const lines = [
    '// Generated from the contract (contract/src/grpc.ts and the TypeBox schemas it names) by',
    '// `npm run proto -w contract`: do not edit by hand.',
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
  for (const message of messages) {
    lines.push(`// ${message.description}`, `message ${message.name} {`);
    if (message.reserved.length > 0) lines.push(`  reserved ${message.reserved.join(', ')};`);
    for (const f of message.fields) {
      const label = f.repeated ? 'repeated ' : f.optional ? 'optional ' : '';
      lines.push(`  // ${f.description}`, `  ${label}${f.type} ${f.name} = ${f.number};`);
    }
    lines.push('}', '');
  }
  return lines.join('\n');
}

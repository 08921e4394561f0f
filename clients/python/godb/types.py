# Generated from the GoDB OpenAPI document (contract/src/openapi-components.ts) by
# clients/python/scripts/generate.ts. Do not edit: run `npm run generate:python`. A drift test fails when stale.
"""The named schemas of the GoDB API as TypedDicts: what the client's methods answer and accept."""

from typing import Any, Dict, List, Literal, TypedDict, Union


class _AclChangeRequired(TypedDict):
    user_id: str


class AclChange(_AclChangeRequired, total=False):
    role: Literal["owner", "edit", "view"]
    expires_at: Union[int, str]


class _AclEntryRequired(TypedDict):
    user_id: str
    role: Literal["owner", "edit", "view"]


class AclEntry(_AclEntryRequired, total=False):
    expires_at: Union[int, str]


class AclUpdate(TypedDict):
    operation: Literal["add", "update", "remove"]
    acl: List["AclChange"]


class AnalysisSettings(TypedDict, total=False):
    language: Literal["en", "de", "fr", "es", "it", "pt", "nl", "sv", "da", "no", "fi", "ru", "hu", "ro", "tr"]
    stop_words: Union[Literal["english", "german", "french", "spanish", "italian", "portuguese", "dutch", "swedish", "danish", "norwegian", "finnish", "russian", "hungarian", "romanian", "turkish"], List[str]]
    synonyms: List[List[str]]


class _ApiKeyRequired(TypedDict):
    id: str
    name: str
    role: Literal["user", "admin", "superadmin"]
    prefix: str
    user_id: str
    user_email: str
    created_at: int


class ApiKey(_ApiKeyRequired, total=False):
    expires_at: int
    last_used_at: int


class ApiKeyList(TypedDict):
    keys: List["ApiKey"]
    total: int


class _AutocompleteRequestRequired(TypedDict):
    prefix: str


class AutocompleteRequest(_AutocompleteRequestRequired, total=False):
    limit: int
    field: str
    fuzziness: int


class AutocompleteResponse(TypedDict):
    suggestions: List[Dict[str, Any]]
    time_taken: float


class ClusterCollection(TypedDict):
    tenant_id: str
    name: str
    epoch: int
    replication_factor: int
    shards: List["CollectionShard"]


class ClusterNode(TypedDict):
    id: str
    address: str
    last_seen: int
    alive: bool


class ClusterShard(TypedDict):
    shard: int
    stream: str
    leader: str
    replicas: List[str]
    first_seq: int
    last_seq: int
    applied_seq: int
    lag: int
    holders: List["ShardHolder"]


class ClusterView(TypedDict):
    mode: Literal["embedded", "cluster"]
    node: str
    nodes: List["ClusterNode"]
    shards: List["ClusterShard"]
    collections: List["ClusterCollection"]
    moves: List["ShardMove"]


class _CollectionRequired(TypedDict):
    name: str
    description: str
    vectors: Dict[str, "VectorSettings"]
    implicit: bool
    created_at: int
    updated_at: int


class Collection(_CollectionRequired, total=False):
    default_vector: str
    indexes: Dict[str, Literal["keyword", "integer", "float", "bool", "datetime", "geo"]]
    analysis: "AnalysisSettings"
    sparse_vectors: Dict[str, Dict[str, Any]]


class _CollectionInfoRequired(TypedDict):
    name: str
    description: str
    vectors: Dict[str, "VectorSettings"]
    implicit: bool
    created_at: int
    updated_at: int
    documents: int
    chunks: int


class CollectionInfo(_CollectionInfoRequired, total=False):
    default_vector: str
    indexes: Dict[str, Literal["keyword", "integer", "float", "bool", "datetime", "geo"]]
    analysis: "AnalysisSettings"
    sparse_vectors: Dict[str, Dict[str, Any]]
    field_indexes: Dict[str, "FieldIndexStats"]
    vector_stats: Dict[str, "VectorStats"]


class CollectionShard(TypedDict):
    shard: int
    subject: str
    replicas: List[str]
    holders: List["ShardHolder"]


class CountDocumentsRequest(TypedDict, total=False):
    primary_table: str
    filter: Union[List["FilterClause"], "FilterGroup", Dict[str, Any], str]


class _CreateCollectionRequestRequired(TypedDict):
    name: str


class CreateCollectionRequest(_CreateCollectionRequestRequired, total=False):
    description: str
    vectors: Dict[str, "VectorSettingsInput"]
    default_vector: str
    indexes: Dict[str, Literal["keyword", "integer", "float", "bool", "datetime", "geo"]]
    analysis: "AnalysisSettings"
    sparse_vectors: Dict[str, Dict[str, Any]]
    shards: int
    replication_factor: int


class _CreatedApiKeyRequired(TypedDict):
    id: str
    name: str
    role: Literal["user", "admin", "superadmin"]
    prefix: str
    user_id: str
    user_email: str
    created_at: int
    key: str


class CreatedApiKey(_CreatedApiKeyRequired, total=False):
    expires_at: int
    last_used_at: int


class CreatedUser(TypedDict):
    success: Literal[True]
    message: str
    user_id: str
    tenant_id: str
    role: Literal["user", "admin", "superadmin"]


class Credentials(TypedDict):
    email: str
    password: str
    tenant_id: str


class _DecayTermRequired(TypedDict):
    function: Literal["exp", "gauss", "linear"]
    field: str
    scale: float


class DecayTerm(_DecayTermRequired, total=False):
    origin: Union[float, str, Dict[str, Any]]
    offset: float
    decay: float


class _DeleteDocumentsRequestRequired(TypedDict):
    primary_table: str
    filter: Union[List["FilterClause"], "FilterGroup", Dict[str, Any], str]


class DeleteDocumentsRequest(_DeleteDocumentsRequestRequired, total=False):
    permanent: bool


class DeleteDocumentsResponse(TypedDict):
    success: Literal[True]
    deleted: int
    skipped: int


class DocumentInput(TypedDict, total=False):
    id: str
    content: str
    text_content: str
    title: str
    metadata: Dict[str, Any]
    location: List[Any]
    file_content: str
    file_url: str
    storage_type: str
    file_type: str
    content_type: str
    created_at: Union[int, str]
    updated_at: Union[int, str]
    indexed_at: Union[int, str]
    primary_table: str
    tags: List[str]
    categories: List[str]
    visibility: Literal["public", "private", "shared"]
    parent_doc_id: str
    child_doc_ids: List[str]
    external_id: str
    source_url: str
    lang_code: str
    tenant_id: str
    access_list: List[str]
    acl: List["AclEntry"]
    vector_meta: Dict[str, Any]
    engagement: "Engagement"
    embedding_options: "EmbeddingOptions"
    chunk_size: int
    chunk_overlap: int
    edges: List["GraphEdgeInput"]
    vector: List[float]
    vectors: Dict[str, List[float]]
    multi_vectors: Dict[str, List[List[float]]]
    sparse_vectors: Dict[str, Dict[str, Any]]


class DocumentStats(TypedDict):
    DocumentCount: int
    VectorCount: int
    GeoCount: int
    ClusterCount: int
    AvgVectorDim: float


class EmailServiceRequest(TypedDict, total=False):
    service_id: str
    template_id: str
    user_id: str
    accessToken: str
    template_params: Any


class EmbeddingModel(TypedDict):
    name: str
    provider: str
    dimensions: int
    default: bool
    description: str


class EmbeddingOptions(TypedDict, total=False):
    """How text is embedded: the model (the server’s default when absent), quantization and preprocessing; for a document, enabled false stores and text-indexes it without vectors."""
    enabled: bool
    model: str
    model_name: str
    quantization: "QuantizationOptions"
    preprocessing: "PreprocessingOptions"


class _EmbeddingRequestRequired(TypedDict):
    text: str


class EmbeddingRequest(_EmbeddingRequestRequired, total=False):
    model_name: str
    original_text: str
    embedding_options: "EmbeddingOptions"


class _EmbeddingResponseRequired(TypedDict):
    content_embedding: List[float]
    model_name: str
    token_count: int
    dimensions: int
    processing_time_ms: float


class EmbeddingResponse(_EmbeddingResponseRequired, total=False):
    original_text_embedding: List[float]


class Engagement(TypedDict, total=False):
    """Engagement signals (clicks, likes, views …): counts are added to the stored ones, scores set. They rank autocomplete, feed the learned re-ranking of hybrid search, and filters read them as engagement.<name>."""
    clicks: float
    likes: float
    dislikes: float
    dwell_time: float
    views: float
    engagements: float
    completion: float
    quality_score: float
    relevance_score: float
    unique_users: float
    last_engaged: Union[int, str]
    shares: float
    bookmarks: float
    comments: float
    sentiment_score: float
    feedback: Any


class ErrorBody(TypedDict):
    """Every non-2xx answer of the API."""
    error: Dict[str, Any]


class ExplainHit(TypedDict):
    document_id: str
    score: float


class _ExplainStageRequired(TypedDict):
    stage: str
    kind: str
    hits: List["ExplainHit"]


class ExplainStage(_ExplainStageRequired, total=False):
    feedback: "FeedbackExplain"


class _FacetedSearchRequestRequired(TypedDict):
    facets: List[str]


class FacetedSearchRequest(_FacetedSearchRequestRequired, total=False):
    query: str
    limit: int
    primary_table: str
    lat: float
    lon: float
    radius: float
    filters: Union[List["FilterClause"], "FilterGroup", Dict[str, Any], str]
    explain: bool


class _FacetedSearchResponseRequired(TypedDict):
    results: List["SearchResult"]
    total_hits: int
    time_taken: float
    facets: Dict[str, List[Dict[str, Any]]]


class FacetedSearchResponse(_FacetedSearchResponseRequired, total=False):
    ranking: str
    notes: List[str]
    plan: "SearchPlan"
    missing_shards: List[int]


class FeedbackExplain(TypedDict):
    """With feedback: the documents RM3 read and the weighted query it ranked."""
    documents: List[str]
    terms: List["FeedbackTerm"]


class FeedbackTerm(TypedDict):
    term: str
    weight: float


class _FieldIndexStatsRequired(TypedDict):
    kind: Literal["keyword", "integer", "float", "bool", "datetime", "geo"]
    state: Literal["building", "ready", "failed"]
    progress: float
    documents: int
    postings: int


class FieldIndexStats(_FieldIndexStatsRequired, total=False):
    error: str


class _FilterClauseRequired(TypedDict):
    field: str
    operator: Literal["eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "contains", "exists", "geo_radius"]


class FilterClause(_FilterClauseRequired, total=False):
    value: Any


class FilterGroup(TypedDict, total=False):
    must: List[Union["FilterClause", Dict[str, Any]]]
    should: List[Union["FilterClause", Dict[str, Any]]]
    must_not: List[Union["FilterClause", Dict[str, Any]]]


class _FormulaMultiplierRequired(TypedDict):
    field: str


class FormulaMultiplier(_FormulaMultiplierRequired, total=False):
    default: float


class FormulaTerm(TypedDict, total=False):
    """A term: weight × (`value`, or the `decay` of a date or a distance)."""
    weight: float
    value: str
    default: float
    decay: "DecayTerm"


class _FuzzySearchRequestRequired(TypedDict):
    query: str


class FuzzySearchRequest(_FuzzySearchRequestRequired, total=False):
    fuzziness: int
    limit: int
    prefix_length: int
    primary_table: str
    lat: float
    lon: float
    radius: float
    field_name: str


class GeoPoint(TypedDict):
    lat: float
    lon: float


class _GeoSearchRequestRequired(TypedDict):
    lat: float
    lon: float
    radius: float


class GeoSearchRequest(_GeoSearchRequestRequired, total=False):
    limit: int
    primary_table: str
    field_name: str


class GraphEdge(TypedDict):
    target_id: str
    type: str
    weight: float


class _GraphEdgeInputRequired(TypedDict):
    target_id: str


class GraphEdgeInput(_GraphEdgeInputRequired, total=False):
    type: str
    weight: float


class _GraphQueryRequestRequired(TypedDict):
    start_node_id: str


class GraphQueryRequest(_GraphQueryRequestRequired, total=False):
    depth: int
    limit: int
    query_type: str
    filters: Dict[str, Any]


class _GraphResponseRequired(TypedDict):
    query_type: str
    nodes: List[Dict[str, Any]]
    edges: List[Dict[str, Any]]
    time_taken: float


class GraphResponse(_GraphResponseRequired, total=False):
    path: List[str]
    cost: float
    hops: int
    embeddings: Dict[str, List[float]]


class GraphSearchRequest(TypedDict, total=False):
    start_node_id: str
    end_node_id: str
    depth: int
    limit: int
    query_type: str
    edge_type: str
    centrality_type: str
    node_ids: List[str]
    dimensions: int
    lat: float
    lon: float
    radius: float
    field_name: str
    filters: Dict[str, Any]


class HnswSettings(TypedDict):
    m: int
    ef_construction: int
    ef_search: int


class HnswSettingsInput(TypedDict, total=False):
    m: int
    ef_construction: int
    ef_search: int


class HybridSearchRequest(TypedDict, total=False):
    query: str
    vector: Union[List[float], str]
    vector_name: str
    alpha: float
    limit: int
    fusion: Literal["dbsf_relative", "dbsf", "weighted", "rrf"]
    use_ml_ranking: bool
    model_name: str
    primary_table: str
    lat: float
    lon: float
    radius: float
    filters: Union[List["FilterClause"], "FilterGroup", Dict[str, Any], str]
    lang: Literal["en", "de", "fr", "es", "it", "pt", "nl", "sv", "da", "no", "fi", "ru", "hu", "ro", "tr"]
    highlight: bool
    explain: bool


class _LoginBodyRequired(TypedDict):
    email: str
    password: str


class LoginBody(_LoginBodyRequired, total=False):
    tenant_id: str


class MailAccepted(TypedDict):
    success: Literal[True]
    message: str
    message_ids: List[str]


class _MailHelperRequestRequired(TypedDict):
    from_name: str
    from_email: str
    subject: str
    message: str


class MailHelperRequest(_MailHelperRequestRequired, total=False):
    phone: str


class ModelList(TypedDict):
    models: List[str]
    default_model: str
    details: List["EmbeddingModel"]
    notes: List[str]


class _MultiTableSearchRequestRequired(TypedDict):
    table_names: List[str]


class MultiTableSearchRequest(_MultiTableSearchRequestRequired, total=False):
    join_conditions: Any
    query: str
    limit: int


class MultiVectorSettings(TypedDict):
    """Makes this a multi-vector (late interaction, ColBERT): each document gives a list of vectors (`multi_vectors: {<name>: [[...], ...]}`), each vector in the HNSW index, and a document scores by MaxSim: Σ over the query’s vectors of the greatest similarity to any of its own."""
    max_vectors: int


class _NamedVectorRequired(TypedDict):
    source: Literal["given", "model"]


class NamedVector(_NamedVectorRequired, total=False):
    """A stored vector: `vector` when given, `chunks` when a model filled it."""
    model: str
    vector: List[float]
    chunks: List[Dict[str, Any]]


class _NewApiKeyRequired(TypedDict):
    name: str


class NewApiKey(_NewApiKeyRequired, total=False):
    role: Union[Literal["user"], Literal["admin"], Literal["superadmin"]]
    expires_at: Union[int, str]


class _NewMemberRequired(TypedDict):
    email: str
    password: str


class NewMember(_NewMemberRequired, total=False):
    role: Union[Literal["user"], Literal["admin"]]


class NothingRegistered(TypedDict):
    success: Literal[False]
    message: str


class _PipelineFormulaRequired(TypedDict):
    terms: List["FormulaTerm"]


class PipelineFormula(_PipelineFormulaRequired, total=False):
    """A new score = (Σ terms) × Π multipliers."""
    multipliers: List["FormulaMultiplier"]


class _PipelineFusionRequired(TypedDict):
    method: Literal["rrf", "dbsf", "weighted"]


class PipelineFusion(_PipelineFusionRequired, total=False):
    """How the stages’ candidates are fused into one list."""
    k: float
    weights: List[float]


class _PipelineGroupByRequired(TypedDict):
    field: str


class PipelineGroupBy(_PipelineGroupByRequired, total=False):
    group_size: int
    limit: int
    list: Literal["each", "first"]


PipelineMmr = TypedDict("PipelineMmr", {
    "lambda": float,
    "candidates": int,
    "vector_name": str,
}, total=False)


class _PipelineRerankRequired(TypedDict):
    model: str


class PipelineRerank(_PipelineRerankRequired, total=False):
    """Scores the best candidates after fusion or rescore with a cross-encoder, each (query, text) pair together; the score becomes the reranker’s."""
    query: str
    candidates: int
    field: str


class _PipelineRescoreRequired(TypedDict):
    vector_name: str


class PipelineRescore(_PipelineRescoreRequired, total=False):
    """Scores every candidate of the stages exactly by its similarity to the query on this vector (a candidate without that vector is left out)."""
    query: str
    vector: List[float]
    multi_vector: List[List[float]]


class PreprocessingOptions(TypedDict, total=False):
    normalize: bool
    max_tokens: int
    overlap: int
    strategy: Literal["token", "sentence", "paragraph"]


class QuantizationOptions(TypedDict, total=False):
    enabled: bool
    method: Literal["linear", "kmeans", "binary"]
    bit_width: Literal[4, 8, 16]
    kmeans_clusters: int


class _QuantizedEmbeddingRequestRequired(TypedDict):
    text: str


class QuantizedEmbeddingRequest(_QuantizedEmbeddingRequestRequired, total=False):
    model_name: str
    original_text: str
    method: Literal["linear", "kmeans", "binary"]
    bit_width: Literal[4, 8, 16]
    kmeans_clusters: int


class _QuantizedEmbeddingResponseRequired(TypedDict):
    content_embedding: List[float]
    model_name: str
    token_count: int
    dimensions: int
    processing_time_ms: float
    quantized_vector: List[int]
    quantization_info: Dict[str, Any]
    compression_ratio: float
    overhead_bytes: int
    reconstruction_error: float


class QuantizedEmbeddingResponse(_QuantizedEmbeddingResponseRequired, total=False):
    original_text_embedding: List[float]


class QueryGroup(TypedDict):
    value: str
    document_ids: List[str]


class _QueryRequestRequired(TypedDict):
    prefetch: List[Dict[str, Any]]


class QueryRequest(_QueryRequestRequired, total=False):
    primary_table: str
    filters: Union[List["FilterClause"], "FilterGroup", Dict[str, Any], str]
    fusion: "PipelineFusion"
    rescore: "PipelineRescore"
    rerank: "PipelineRerank"
    formula: "PipelineFormula"
    mmr: "PipelineMmr"
    group_by: "PipelineGroupBy"
    offset: int
    limit: int
    with_vectors: Union[bool, List[str]]
    with_fields: Union[bool, List[str]]
    explain: bool


class _QueryResponseRequired(TypedDict):
    results: List["QueryResult"]
    total_hits: int
    time_taken: float


class QueryResponse(_QueryResponseRequired, total=False):
    groups: List["QueryGroup"]
    notes: List[str]
    explain: List["ExplainStage"]


class _QueryResultRequired(TypedDict):
    document_id: str
    title: str
    chunks: List["SearchChunk"]
    metadata: Dict[str, Any]
    score: float


class QueryResult(_QueryResultRequired, total=False):
    similarity: float
    distance: float
    table: str
    joined: List[Dict[str, Any]]
    strategies: Dict[str, float]
    highlights: List[str]
    vectors: Dict[str, List[float]]
    sparse_vectors: Dict[str, Dict[str, Any]]
    fields: Dict[str, Any]


class RecommendationRequest(TypedDict, total=False):
    document_id: str
    user_id: str
    dataset_id: str
    limit: int
    strategy: Literal["content", "collaborative", "graph", "hybrid"]
    content_weight: float
    collab_weight: float
    graph_weight: float
    min_similarity: float
    graph_depth: int
    edge_type: str
    primary_table: str
    lat: float
    lon: float
    radius: float
    field_name: str
    combine_location_score: bool
    filters: Union[List["FilterClause"], "FilterGroup", Dict[str, Any], str]
    vector_name: str
    vector: List[float]


class _RegisterBodyRequired(TypedDict):
    email: str
    password: str


class RegisterBody(_RegisterBodyRequired, total=False):
    tenant_id: str


class ScrollDocumentsRequest(TypedDict, total=False):
    primary_table: str
    filter: Union[List["FilterClause"], "FilterGroup", Dict[str, Any], str]
    limit: int
    cursor: str
    with_vectors: bool


class _ScrollDocumentsResponseRequired(TypedDict):
    documents: List["StoredDocument"]


class ScrollDocumentsResponse(_ScrollDocumentsResponseRequired, total=False):
    next_cursor: str


class _SearchChunkRequired(TypedDict):
    id: str
    content: str
    type: str
    score: float


class SearchChunk(_SearchChunkRequired, total=False):
    metadata: Dict[str, Union[str, float, bool]]


class _SearchPlanRequired(TypedDict):
    filter: Literal["none", "index", "scan", "access", "per-candidate"]
    path: Literal["empty", "small-exact", "allowed-exact", "allowed-hnsw", "hnsw", "text-allowed", "text", "listed"]
    exact: bool


class SearchPlan(_SearchPlanRequired, total=False):
    allowed: int
    estimated_at_least: int
    vector_filter: Literal["none", "index", "scan", "access", "per-candidate"]
    vector_path: Literal["empty", "small-exact", "allowed-exact", "allowed-hnsw", "hnsw"]
    facets: Dict[str, Literal["index", "documents"]]
    feedback: "FeedbackExplain"


class _SearchResponseRequired(TypedDict):
    results: List["SearchResult"]
    total_hits: int
    time_taken: float


class SearchResponse(_SearchResponseRequired, total=False):
    ranking: str
    notes: List[str]
    plan: "SearchPlan"
    missing_shards: List[int]


class _SearchResultRequired(TypedDict):
    document_id: str
    title: str
    chunks: List["SearchChunk"]
    metadata: Dict[str, Any]
    score: float


class SearchResult(_SearchResultRequired, total=False):
    similarity: float
    distance: float
    table: str
    joined: List[Dict[str, Any]]
    strategies: Dict[str, float]
    highlights: List[str]


class ShardHolder(TypedDict):
    node: str
    applied_seq: int


ShardMove = TypedDict("ShardMove", {
    "shard": int,
    "from": str,
    "to": str,
    "started_at": int,
    "tenant_id": str,
    "collection": str,
    "applied_seq": int,
    "last_seq": int,
    "lag": int,
}, total=False)


class SmartSearchRequest(TypedDict, total=False):
    query: str
    limit: int
    mode: Literal["auto", "text", "semantic", "geo"]
    auto_route: bool
    primary_table: str
    lat: float
    lon: float
    radius: float
    field_name: str


class _SmartSearchResponseRequired(TypedDict):
    results: List["SearchResult"]
    total_hits: int
    time_taken: float
    route: str
    reason: str


class SmartSearchResponse(_SmartSearchResponseRequired, total=False):
    ranking: str
    notes: List[str]
    plan: "SearchPlan"
    missing_shards: List[int]


class _StoredDocumentRequired(TypedDict):
    id: str
    tenant_id: str
    is_chunk: bool
    is_parent: bool
    is_child: bool
    version: int
    needs_refresh: bool
    is_dirty: bool


class StoredDocument(_StoredDocumentRequired, total=False):
    content: str
    title: str
    metadata: Dict[str, Any]
    location: List[Any]
    file_url: str
    storage_type: str
    file_type: str
    content_type: str
    created_at: Union[int, str]
    updated_at: Union[int, str]
    indexed_at: Union[int, str]
    primary_table: str
    tags: List[str]
    categories: List[str]
    visibility: Literal["public", "private", "shared"]
    parent_doc_id: str
    child_doc_ids: List[str]
    external_id: str
    source_url: str
    lang_code: str
    access_list: List[str]
    acl: List["AclEntry"]
    vector_meta: Dict[str, Any]
    engagement: "Engagement"
    embedding_options: "EmbeddingOptions"
    chunk_size: int
    chunk_overlap: int
    edges: List["GraphEdge"]
    vector: List[float]
    vectors: Dict[str, List[float]]
    multi_vectors: Dict[str, List[List[float]]]
    sparse_vectors: Dict[str, Dict[str, Any]]
    relation_type: str
    hierarchy_path: str
    translations: Dict[str, str]
    processed_by: List[str]
    model_versions: Dict[str, str]
    previous_doc_id: str
    feedback: Any
    label: str
    cluster: int
    chunks: List[Any]
    embeddings: Any
    named_vectors: Dict[str, "NamedVector"]
    stats: Any


class SuccessMessage(TypedDict):
    success: bool
    message: str


class TextFeedback(TypedDict, total=False):
    """RM3 pseudo-relevance feedback (a match query): BM25 ranks the query, the best `docs` results (only documents you may read that pass the filters) give a relevance model of their terms (stop words and numbers left out), its best `terms` words are mixed with the query (`original_weight`), and BM25 ranks that weighted query again; scores are the second ranking’s (docs/decisions/0074). Over gRPC, give at least one field (an empty message is not sent)."""
    docs: int
    terms: int
    original_weight: float


class _TextSearchRequestRequired(TypedDict):
    query: str


class TextSearchRequest(_TextSearchRequestRequired, total=False):
    limit: int
    query_type: Literal["match", "phrase", "wildcard"]
    primary_table: str
    chunk_size: int
    chunk_overlap: int
    lat: float
    lon: float
    radius: float
    field_name: str
    require_geo: bool
    filters: Union[List["FilterClause"], "FilterGroup", Dict[str, Any], str]
    lang: Literal["en", "de", "fr", "es", "it", "pt", "nl", "sv", "da", "no", "fi", "ru", "hu", "ro", "tr"]
    highlight: bool
    feedback: "TextFeedback"
    explain: bool
    allow_partial: bool


class TokenResponse(TypedDict):
    token: str
    token_type: Literal["Bearer"]
    expires_at: int
    user: "User"


class UpdateCollectionRequest(TypedDict, total=False):
    description: str
    default_vector: str
    vectors: Dict[str, Dict[str, Any]]
    indexes: Dict[str, Literal["keyword", "integer", "float", "bool", "datetime", "geo"]]
    analysis: "AnalysisSettings"


class User(TypedDict):
    id: str
    email: str
    tenant_id: str
    role: Literal["user", "admin", "superadmin"]
    groups: List[str]
    created_at: int
    updated_at: int


class VectorSearchRequest(TypedDict, total=False):
    query: str
    vector: Union[List[float], str]
    vector_type: str
    vector_name: str
    limit: int
    similarity_method: Literal["cosine", "euclidean", "dot"]
    threshold: float
    primary_table: str
    embedding_options: "EmbeddingOptions"
    center: "GeoPoint"
    lat: float
    lon: float
    radius: float
    field_name: str
    combine_location_score: bool
    filters: Union[List["FilterClause"], "FilterGroup", Dict[str, Any], str]
    explain: bool
    allow_partial: bool


class _VectorSettingsRequired(TypedDict):
    dimensions: int
    distance: Literal["cosine", "euclidean", "dot"]
    storage: Literal["f32", "f16", "i8", "b1"]
    hnsw: "HnswSettings"


class VectorSettings(_VectorSettingsRequired, total=False):
    model: str
    multi: "MultiVectorSettings"


class VectorSettingsInput(TypedDict, total=False):
    dimensions: int
    distance: Literal["cosine", "euclidean", "dot"]
    storage: Literal["f32", "f16", "i8", "b1"]
    hnsw: "HnswSettingsInput"
    model: str
    multi: "MultiVectorSettings"


class _VectorStatsRequired(TypedDict):
    vectors: int
    indexed: int
    index: Literal["not loaded", "loading", "ready"]
    bytes_per_vector: float
    memory_bytes: int
    index_bytes: int
    copies_bytes: int
    disk_bytes: int


class VectorStats(_VectorStatsRequired, total=False):
    loaded_from: Literal["file", "store"]

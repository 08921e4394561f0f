import { createError, type Collection } from '@godb/contract';
import type { PreparedDocument } from './types.js';

/**
 * A vector the caller gives for a name its collection's model would fill (issue #37, docs/decisions/0006): the
 * model is skipped for the document. It is one vector for the whole document, however many chunks the content
 * has: stored exactly as given beside the client's other vectors (`document_vectors`, which marks it as given), and,
 * made unit length, as the vector of the document's first chunk, so that it is searched in the model's index with
 * the chunks the model embedded. The other chunks carry no vector. Checked here, before anything is embedded or
 * written, and again inside the write (Collections.prepareWrite).
 *
 * @example const doc = withGivenModelVector(prepared, collections.get(tenantId, prepared.primaryTable), requested);
 */
export function withGivenModelVector(
  doc: PreparedDocument,
  collection: Collection | undefined,
  requestedModel?: string,
): PreparedDocument {
  if (!collection) return doc;
  const given = doc.vectors.filter((g) => g.name !== '' && collection.vectors[g.name]?.model !== undefined);
  const [first, second] = given;
  if (!first) return doc;
  if (second) {
    throw createError(
      'VALIDATION_FAILED',
      {
        detail: `${second.field} and ${first.field} both give a vector that a model fills: a document's chunks are embedded by one model, so give one of them`,
      },
      { field: second.field },
    );
  }
  const settings = collection.vectors[first.name]!;
  const model = settings.model!;
  if (requestedModel !== undefined && requestedModel !== model) {
    throw createError(
      'VALIDATION_FAILED',
      {
        detail: `${first.field} is the vector model ${model} fills, but the document asks model ${requestedModel} in embedding_options; leave out embedding_options, or give the vector under another name`,
      },
      { field: first.field },
    );
  }
  if (first.vector.length !== settings.dimensions) {
    throw createError(
      'INVALID_VECTOR_FORMAT',
      {
        reason: `${first.field} has ${first.vector.length} numbers but vector "${first.name}" of collection ${collection.name} has ${settings.dimensions} dimensions (model ${model})`,
      },
      { field: first.field },
    );
  }
  const norm = Math.hypot(...first.vector);
  if (norm === 0) {
    throw createError(
      'INVALID_VECTOR_FORMAT',
      { reason: `${first.field} is a zero vector, which has no direction for cosine` },
      { field: first.field },
    );
  }
  // The model's index compares unit vectors by their dot product (cosine), as the model's own vectors are.
  const unit = first.vector.map((x) => x / norm);
  // A document with neither content nor title has no chunk: it gets an empty one to carry the vector.
  const chunks = doc.chunks.length > 0 ? doc.chunks : [{ content: '', start: 0, end: 0 }];
  return {
    ...doc,
    model,
    chunks: chunks.map((c, i) => ({
      content: c.content,
      start: c.start,
      end: c.end,
      ...(i === 0 && { vector: unit }),
    })),
    givenModelVector: first.name,
  };
}

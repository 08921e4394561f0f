import onnxProto, { type onnx as OnnxTypes } from 'onnx-proto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const { onnx } = onnxProto;
const { DataType } = onnx.TensorProto;

/** Special tokens of the test tokenizer: [PAD] 0, [CLS] 1, [SEP] 2, [UNK] 3; words follow. */
const specials = ['[PAD]', '[CLS]', '[SEP]', '[UNK]'];
/** The logit is overlap − this, so the answered sigmoid spreads over 0–1 for small overlaps. */
export const overlapBias = 2;

/** Words as the tokenizer splits them (Lowercase, then the Whitespace pre-tokenizer: \w+ or runs of punctuation). */
export const wordsOf = (text: string) => text.toLowerCase().match(/\w+|[^\w\s]+/g) ?? [];

/**
 * The token overlap the model computes: Σ over vocabulary words of min(count in query, count in text). Words not
 * in the vocabulary are [UNK] and count for nothing.
 */
export function tokenOverlap(vocabulary: readonly string[], query: string, text: string): number {
  const known = new Set(vocabulary);
  const count = (t: string) => {
    const counts = new Map<string, number>();
    for (const w of wordsOf(t)) if (known.has(w)) counts.set(w, (counts.get(w) ?? 0) + 1);
    return counts;
  };
  const q = count(query);
  const d = count(text);
  let overlap = 0;
  for (const [w, n] of q) overlap += Math.min(n, d.get(w) ?? 0);
  return overlap;
}

/** What the model answers for a pair, after the reranker's sigmoid. */
export const overlapScore = (vocabulary: readonly string[], query: string, text: string) =>
  1 / (1 + Math.exp(-(tokenOverlap(vocabulary, query, text) - overlapBias)));

function tokenizerJson(vocabulary: readonly string[]) {
  const vocab = Object.fromEntries([...specials, ...vocabulary].map((w, i) => [w, i]));
  const special = (id: string, typeId: number) => ({ SpecialToken: { id, type_id: typeId } });
  const sequence = (id: string, typeId: number) => ({ Sequence: { id, type_id: typeId } });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specials.map((content, id) => ({
      id,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: { type: 'Lowercase' },
    pre_tokenizer: { type: 'Whitespace' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [special('[CLS]', 0), sequence('A', 0), special('[SEP]', 0)],
      pair: [special('[CLS]', 0), sequence('A', 0), special('[SEP]', 0), sequence('B', 1), special('[SEP]', 1)],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [1], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [2], tokens: ['[SEP]'] },
      },
    },
    decoder: null,
    model: { type: 'WordLevel', vocab, unk_token: '[UNK]' },
  };
}

/**
 * A cross-encoder graph whose logit is the token overlap of the pair's two segments minus overlapBias: one-hot the
 * ids, count each word in segment A (token type 0) and B (type 1) under the attention mask, Σ min of the counts
 * over the vocabulary with the special tokens weighted 0. Inputs input_ids, attention_mask, token_type_ids
 * [batch, length] int64; output logits [batch, 1], as a Hugging Face sequence-classification export.
 */
function overlapGraph(size: number): Uint8Array {
  const int64 = (name: string, values: number[], dims = [values.length]): OnnxTypes.ITensorProto => ({
    name,
    dims,
    dataType: DataType.INT64,
    rawData: new Uint8Array(BigInt64Array.from(values, (v) => BigInt(v)).buffer),
  });
  const float = (name: string, values: number[], dims = [values.length]): OnnxTypes.ITensorProto => ({
    name,
    dims,
    dataType: DataType.FLOAT,
    rawData: new Uint8Array(Float32Array.from(values).buffer),
  });
  const weights = Array.from({ length: size }, (_, i) => (i < specials.length ? 0 : 1));
  const initializer = [
    int64('depth', [size], []),
    float('onoff', [0, 1]),
    float('one', [1], []),
    float('bias', [overlapBias], []),
    float('weights', weights),
    int64('axis1', [1]),
    int64('axis2', [2]),
  ];
  const n = (opType: string, input: string[], output: string, attribute: OnnxTypes.IAttributeProto[] = []) => ({
    opType,
    input,
    output: [output],
    attribute,
    name: output,
  });
  const node = [
    n('OneHot', ['input_ids', 'depth', 'onoff'], 'hot', [{ name: 'axis', type: 2, i: -1 }]),
    n('Cast', ['token_type_ids'], 'types', [{ name: 'to', type: 2, i: DataType.FLOAT }]),
    n('Cast', ['attention_mask'], 'mask', [{ name: 'to', type: 2, i: DataType.FLOAT }]),
    n('Sub', ['one', 'types'], 'not_types', []),
    n('Mul', ['not_types', 'mask'], 'in_a', []),
    n('Mul', ['types', 'mask'], 'in_b', []),
    n('Unsqueeze', ['in_a', 'axis2'], 'in_a3', []),
    n('Unsqueeze', ['in_b', 'axis2'], 'in_b3', []),
    n('Mul', ['hot', 'in_a3'], 'hot_a', []),
    n('Mul', ['hot', 'in_b3'], 'hot_b', []),
    n('ReduceSum', ['hot_a', 'axis1'], 'count_a', [{ name: 'keepdims', type: 2, i: 0 }]),
    n('ReduceSum', ['hot_b', 'axis1'], 'count_b', [{ name: 'keepdims', type: 2, i: 0 }]),
    n('Min', ['count_a', 'count_b'], 'shared', []),
    n('Mul', ['shared', 'weights'], 'counted', []),
    n('ReduceSum', ['counted', 'axis1'], 'overlap', [{ name: 'keepdims', type: 2, i: 1 }]),
    n('Sub', ['overlap', 'bias'], 'logits', []),
  ];
  const input = ['input_ids', 'attention_mask', 'token_type_ids'].map((name) => ({
    name,
    type: { tensorType: { elemType: DataType.INT64, shape: { dim: [{ dimParam: 'batch' }, { dimParam: 'length' }] } } },
  }));
  return onnx.ModelProto.encode({
    irVersion: 8,
    producerName: 'godb test overlap cross-encoder',
    opsetImport: [{ domain: '', version: 15 }],
    graph: { name: 'overlap', node, initializer, input, output: [{ name: 'logits' }] },
  }).finish();
}

/**
 * Writes a bring-your-own cross-encoder folder (tokenizer.json, tokenizer_config.json, onnx/model.onnx) whose scores
 * are predictable: overlapScore(vocabulary, query, text).
 *
 * @example writeOverlapCrossEncoder(join(dir, 'overlap'), ['shock', 'wave']);
 */
export function writeOverlapCrossEncoder(folder: string, vocabulary: readonly string[]): void {
  mkdirSync(join(folder, 'onnx'), { recursive: true });
  writeFileSync(join(folder, 'tokenizer.json'), JSON.stringify(tokenizerJson(vocabulary)));
  writeFileSync(
    join(folder, 'tokenizer_config.json'),
    JSON.stringify({
      model_max_length: 512,
      pad_token: '[PAD]',
      unk_token: '[UNK]',
      cls_token: '[CLS]',
      sep_token: '[SEP]',
    }),
  );
  writeFileSync(join(folder, 'onnx', 'model.onnx'), overlapGraph(specials.length + vocabulary.length));
}

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as ort from 'onnxruntime-node';
import { tfGraphToOnnx, type TfGraphModel } from './tf-graph-to-onnx.js';

const int32 = (values: number[]) => new Uint8Array(Int32Array.from(values).buffer);
const concat = (parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
};

// x[:, 1] (shrink on axis 1, begin/end masks on axis 0), then scattered into a dense 3-vector at [2, 0].
const graph: TfGraphModel = {
  modelTopology: {
    node: [
      { name: 'y', op: 'SparseToDense', input: ['where', 'shape', 'col', 'zero'] },
      {
        name: 'col',
        op: 'StridedSlice',
        input: ['x', 'begin', 'end', 'strides'],
        attr: {
          begin_mask: { i: '1' },
          end_mask: { i: '1' },
          shrink_axis_mask: { i: '2' },
          ellipsis_mask: { i: '0' },
          new_axis_mask: { i: '0' },
        },
      },
      {
        name: 'x',
        op: 'Placeholder',
        attr: { dtype: { type: 3 }, shape: { shape: { dim: [{ size: '-1' }, { size: '2' }] } } },
      },
      { name: 'begin', op: 'Const' },
      { name: 'end', op: 'Const' },
      { name: 'strides', op: 'Const' },
      { name: 'where', op: 'Const' },
      { name: 'shape', op: 'Const' },
      { name: 'zero', op: 'Const' },
    ],
  },
  weightsManifest: [
    {
      paths: [],
      weights: [
        { name: 'begin', shape: [2], dtype: 'int32' },
        { name: 'end', shape: [2], dtype: 'int32' },
        { name: 'strides', shape: [2], dtype: 'int32' },
        { name: 'where', shape: [2, 1], dtype: 'int32' },
        { name: 'shape', shape: [1], dtype: 'int32' },
        { name: 'zero', shape: [], dtype: 'int32' },
      ],
    },
  ],
};
const weights = concat([int32([0, 1]), int32([0, 2]), int32([1, 1]), int32([2, 0]), int32([3]), int32([0])]);

test('StridedSlice masks and SparseToDense keep TensorFlow semantics', async () => {
  const session = await ort.InferenceSession.create(tfGraphToOnnx(graph, weights, ['y']), { logSeverityLevel: 3 });
  const x = new ort.Tensor('int64', BigInt64Array.from([1n, 10n, 2n, 20n]), [2, 2]);
  const { y } = await session.run({ x });
  assert.deepEqual(Array.from(y!.data as BigInt64Array, Number), [20, 0, 10]);
});

test('an operation without a translation is refused by name', () => {
  const unknown: TfGraphModel = {
    modelTopology: {
      node: [
        { name: 'x', op: 'Placeholder', attr: { dtype: { type: 1 } } },
        { name: 'y', op: 'Erf', input: ['x'] },
      ],
    },
    weightsManifest: [],
  };
  assert.throws(
    () => tfGraphToOnnx(unknown, new Uint8Array(0), ['y']),
    /TensorFlow operation Erf \(y\) has no ONNX translation/,
  );
});

test('weight files that do not match the manifest are refused', () => {
  assert.throws(() => tfGraphToOnnx(graph, weights.subarray(4), ['y']), /the manifest describes/);
});

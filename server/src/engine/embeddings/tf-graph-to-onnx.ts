import onnxProto, { type onnx as OnnxTypes } from 'onnx-proto';

const { onnx } = onnxProto;

/**
 * Translates a TensorFlow.js graph model (model.json + weight shards) into an ONNX model, so that the same weights
 * run on onnxruntime's native CPU kernels instead of TF.js's WASM ones. It covers the operations Universal
 * Sentence Encoder Lite uses, with TensorFlow's semantics; any other operation is refused by name.
 *
 * Every integer tensor becomes int64 (ONNX's Shape, NonZero, GatherND and ScatterND speak int64), so the graph's
 * int32 placeholders are int64 inputs.
 */

export interface TfGraphModel {
  readonly modelTopology: { readonly node: readonly TfNode[] };
  readonly weightsManifest: readonly {
    readonly paths: readonly string[];
    readonly weights: readonly TfWeight[];
  }[];
}

interface TfNode {
  readonly name: string;
  readonly op: string;
  readonly input?: readonly string[];
  readonly attr?: Readonly<Record<string, TfAttr>>;
}

interface TfAttr {
  readonly i?: string | number;
  readonly b?: boolean;
  readonly type?: number | string;
  readonly list?: { readonly i?: readonly (string | number)[] };
  readonly shape?: { readonly dim?: readonly { readonly size?: string | number }[] };
}

interface TfWeight {
  readonly name: string;
  readonly shape: readonly number[];
  readonly dtype: string;
  readonly quantization?: unknown;
}

const { DataType } = onnx.TensorProto;
const { AttributeType } = onnx.AttributeProto;
const int64Max = 9223372036854775807n;
const int64Min = -9223372036854775808n;

/** TF DataType enum (numbers or names) → ONNX element type. */
function elementType(type: number | string | undefined): number {
  switch (type) {
    case 1:
    case 'DT_FLOAT':
      return DataType.FLOAT;
    case 3:
    case 9:
    case 'DT_INT32':
    case 'DT_INT64':
      return DataType.INT64;
    case 10:
    case 'DT_BOOL':
      return DataType.BOOL;
    default:
      throw new TypeError(`unsupported TensorFlow dtype ${String(type)}`);
  }
}

/** TensorFlow operations that are one ONNX operation on the same inputs (BiasAdd: NHWC, the only layout here). */
const direct: Readonly<Record<string, string>> = {
  Add: 'Add',
  BiasAdd: 'Add',
  Sub: 'Sub',
  Mul: 'Mul',
  RealDiv: 'Div',
  Maximum: 'Max',
  Less: 'Less',
  Greater: 'Greater',
  LogicalNot: 'Not',
  Relu: 'Relu',
  Tanh: 'Tanh',
  Sin: 'Sin',
  Cos: 'Cos',
  Shape: 'Shape',
  Reshape: 'Reshape',
  Range: 'Range',
  GatherNd: 'GatherND',
};

const int = (attr: TfAttr | undefined, fallback = 0): number => (attr?.i === undefined ? fallback : Number(attr.i));
const ints = (attr: TfAttr | undefined): number[] => (attr?.list?.i ?? []).map(Number);

type Constant = { readonly type: number; readonly dims: number[]; readonly values: Float32Array | BigInt64Array };

/**
 * Builds the ONNX model. `weightData` is the concatenation of the manifest's shards, in order.
 * `outputs` names the graph's output nodes.
 */
export function tfGraphToOnnx(model: TfGraphModel, weightData: Uint8Array, outputs: readonly string[]): Uint8Array {
  const constants = readConstants(model, weightData);
  const nodes: OnnxTypes.INodeProto[] = [];
  const initializers: OnnxTypes.ITensorProto[] = [];
  const inputs: OnnxTypes.IValueInfoProto[] = [];
  const ranks = new Map<string, number>();
  let counter = 0;
  const fresh = (base: string) => `${base}__${(counter += 1)}`;

  const initializer = (name: string, constant: Constant) => {
    initializers.push({
      name,
      dims: constant.dims,
      dataType: constant.type,
      rawData: new Uint8Array(constant.values.buffer, constant.values.byteOffset, constant.values.byteLength),
    });
    return name;
  };
  const int64s = (base: string, values: readonly (number | bigint)[]) =>
    initializer(fresh(base), {
      type: DataType.INT64,
      dims: [values.length],
      values: BigInt64Array.from(values, (v) => BigInt(v)),
    });
  const node = (opType: string, input: string[], output: string[], attribute: OnnxTypes.IAttributeProto[] = []) => {
    nodes.push({ opType, input, output, attribute, name: fresh(output[0] ?? opType) });
  };
  const attrInt = (name: string, i: number): OnnxTypes.IAttributeProto => ({ name, type: AttributeType.INT, i });
  const attrInts = (name: string, values: number[]): OnnxTypes.IAttributeProto => ({
    name,
    type: AttributeType.INTS,
    ints: values,
  });
  /** The value of an input that must be a constant (axes, begin/end, permutations). */
  const constantOf = (input: string, node: TfNode): number[] => {
    const constant = constants.get(input);
    if (!constant) throw new TypeError(`${node.op} ${node.name}: input ${input} must be a constant`);
    return Array.from(constant.values, Number);
  };

  for (const tf of topologicalOrder(model.modelTopology.node)) {
    const name = tf.name;
    const input = (tf.input ?? []).filter((i) => !i.startsWith('^')).map(onnxName);
    const [a = '', b = '', c = '', d = ''] = input;
    const attr = tf.attr ?? {};
    const same = direct[tf.op];
    if (same) {
      node(same, input, [name]);
      continue;
    }
    switch (tf.op) {
      case 'Const':
        initializer(name, constants.get(name) ?? missing(name));
        break;
      case 'Placeholder':
        inputs.push({
          name,
          type: {
            tensorType: {
              elemType: elementType(attr.dtype?.type),
              shape: {
                dim: (attr.shape?.shape?.dim ?? []).map((dim, i) =>
                  Number(dim.size) < 0 ? { dimParam: `${name}_${i}` } : { dimValue: Number(dim.size) },
                ),
              },
            },
          },
        });
        break;
      case 'Square':
        node('Mul', [a, a], [name]);
        break;
      case 'Rsqrt': {
        const root = fresh(name);
        node('Sqrt', [a], [root]);
        node('Reciprocal', [root], [name]);
        break;
      }
      case 'Softmax':
        node('Softmax', [a], [name], [attrInt('axis', -1)]);
        break;
      case 'Cast':
        node('Cast', [a], [name], [attrInt('to', elementType(attr.DstT?.type))]);
        break;
      case 'Transpose': {
        const perm = constantOf(b, tf);
        ranks.set(name, perm.length);
        node('Transpose', [a], [name], [attrInts('perm', perm)]);
        break;
      }
      case 'ExpandDims':
        node('Unsqueeze', [a, int64s(name, constantOf(b, tf))], [name]);
        break;
      case 'Squeeze':
        node('Squeeze', [a, int64s(name, ints(attr.squeeze_dims))], [name]);
        break;
      case 'ConcatV2': {
        const axis = constantOf(input[input.length - 1] ?? '', tf)[0] ?? 0;
        node('Concat', input.slice(0, -1), [name], [attrInt('axis', axis)]);
        break;
      }
      case 'Pack': {
        const axis = int(attr.axis);
        const axes = int64s(name, [axis]);
        const parts = input.map((part) => {
          const expanded = fresh(name);
          node('Unsqueeze', [part, axes], [expanded]);
          return expanded;
        });
        node('Concat', parts, [name], [attrInt('axis', axis)]);
        break;
      }
      case 'GatherV2':
        node('Gather', [a, b], [name], [attrInt('axis', constantOf(c, tf)[0] ?? 0)]);
        break;
      case 'ScatterNd': {
        // Scatter `updates` (b) at `indices` (a) into zeros of `shape` (c).
        const zeros = fresh(name);
        node(
          'ConstantOfShape',
          [c],
          [zeros],
          [
            {
              name: 'value',
              type: AttributeType.TENSOR,
              t: { dims: [1], dataType: elementType(attr.T?.type), rawData: zeroOf(elementType(attr.T?.type)) },
            },
          ],
        );
        node('ScatterND', [zeros, a, b], [name]);
        break;
      }
      case 'SparseToDense': {
        // indices (a), output shape (b), values (c), default value (d).
        const filled = fresh(name);
        node('Expand', [d, b], [filled]);
        node('ScatterND', [filled, a, c], [name]);
        break;
      }
      case 'Where': {
        const coordinates = fresh(name);
        node('NonZero', [a], [coordinates]);
        node('Transpose', [coordinates], [name], [attrInts('perm', [1, 0])]);
        break;
      }
      case 'Mean':
      case 'Max':
      case 'Prod': {
        const op = { Mean: 'ReduceMean', Max: 'ReduceMax', Prod: 'ReduceProd' }[tf.op];
        node(op, [a], [name], [attrInts('axes', constantOf(b, tf)), attrInt('keepdims', attr.keep_dims?.b ? 1 : 0)]);
        break;
      }
      case 'Sum':
        node(
          'ReduceSum',
          [a, int64s(name, constantOf(b, tf))],
          [name],
          [attrInt('keepdims', attr.keep_dims?.b ? 1 : 0)],
        );
        break;
      case 'StridedSlice':
        stridedSlice(tf, a, constantOf(b, tf), constantOf(c, tf), constantOf(d, tf));
        break;
      case 'Slice': {
        const begin = constantOf(b, tf);
        const size = constantOf(c, tf);
        const ends = begin.map((start, i) => ((size[i] ?? -1) < 0 ? int64Max : BigInt(start + (size[i] ?? 0))));
        node(
          'Slice',
          [
            a,
            int64s(name, begin),
            int64s(name, ends),
            int64s(
              name,
              begin.map((_v, i) => i),
            ),
          ],
          [name],
        );
        break;
      }
      case 'SplitV': {
        const sizes = constantOf(b, tf);
        if (sizes.some((size) => size < 0)) throw new TypeError(`SplitV ${name}: sizes must be known`);
        const outputs = sizes.map((_s, i) => (i === 0 ? name : `${name}:${i}`));
        node('Split', [a, int64s(name, sizes)], outputs, [attrInt('axis', constantOf(c, tf)[0] ?? 0)]);
        break;
      }
      case 'MatMul': {
        const left = attr.transpose_a?.b ? transposed(a, 2) : a;
        const right = attr.transpose_b?.b ? transposed(b, 2) : b;
        node('MatMul', [left, right], [name]);
        break;
      }
      case 'BatchMatMul':
      case 'BatchMatMulV2': {
        const left = attr.adj_x?.b ? transposed(a, rankOf(a, tf)) : a;
        const right = attr.adj_y?.b ? transposed(b, rankOf(b, tf)) : b;
        node('MatMul', [left, right], [name]);
        break;
      }
      case 'Conv2D': {
        // A 1×1, stride-1 NHWC convolution is a matrix product over the channel axis.
        const filter = constants.get(b);
        const unit = (values: number[]) => values.every((v) => v === 1);
        if (
          !filter ||
          filter.dims[0] !== 1 ||
          filter.dims[1] !== 1 ||
          !unit(ints(attr.strides)) ||
          !unit(ints(attr.dilations))
        )
          throw new TypeError(`Conv2D ${name}: only 1×1 stride-1 convolutions are supported`);
        const kernel = initializer(fresh(name), { ...filter, dims: filter.dims.slice(2) });
        node('MatMul', [a, kernel], [name]);
        break;
      }
      default:
        throw new TypeError(`TensorFlow operation ${tf.op} (${name}) has no ONNX translation here`);
    }
  }

  function transposed(input: string, rank: number): string {
    const output = fresh(input);
    const perm = Array.from({ length: rank }, (_v, i) => i);
    perm[rank - 1] = rank - 2;
    perm[rank - 2] = rank - 1;
    node('Transpose', [input], [output], [attrInts('perm', perm)]);
    return output;
  }

  function rankOf(input: string, tf: TfNode): number {
    const rank = ranks.get(input);
    if (rank === undefined) throw new TypeError(`${tf.op} ${tf.name}: the rank of ${input} is not known`);
    return rank;
  }

  function stridedSlice(tf: TfNode, input: string, begin: number[], end: number[], strides: number[]) {
    const attr = tf.attr ?? {};
    if (int(attr.ellipsis_mask) || int(attr.new_axis_mask))
      throw new TypeError(`StridedSlice ${tf.name}: ellipsis and new-axis masks are not supported`);
    const bit = (mask: TfAttr | undefined, i: number) => (int(mask) >> i) & 1;
    const starts: bigint[] = [];
    const ends: bigint[] = [];
    const shrink: number[] = [];
    begin.forEach((start, i) => {
      const stride = strides[i] ?? 1;
      if (bit(attr.shrink_axis_mask, i)) {
        shrink.push(i);
        starts.push(BigInt(start));
        ends.push(start === -1 ? int64Max : BigInt(start + 1));
        return;
      }
      starts.push(bit(attr.begin_mask, i) ? (stride > 0 ? 0n : int64Max) : BigInt(start));
      ends.push(bit(attr.end_mask, i) ? (stride > 0 ? int64Max : int64Min) : BigInt(end[i] ?? 0));
    });
    const axes = begin.map((_v, i) => i);
    const sliced = shrink.length ? fresh(tf.name) : tf.name;
    node(
      'Slice',
      [input, int64s(tf.name, starts), int64s(tf.name, ends), int64s(tf.name, axes), int64s(tf.name, strides)],
      [sliced],
    );
    if (shrink.length) node('Squeeze', [sliced, int64s(tf.name, shrink)], [tf.name]);
  }

  // Constants consumed only here (axes, permutations, slice bounds) are left out of the model.
  const used = new Set(nodes.flatMap((n) => n.input ?? []));
  const graph: OnnxTypes.IGraphProto = {
    name: 'converted',
    node: nodes,
    initializer: initializers.filter((tensor) => used.has(tensor.name ?? '')),
    input: inputs,
    // Output types are left to onnxruntime's type inference.
    output: outputs.map((name) => ({ name })),
  };
  return onnx.ModelProto.encode({
    irVersion: 8,
    producerName: 'godb tf-graph-to-onnx',
    opsetImport: [{ domain: '', version: 15 }],
    graph,
  }).finish();
}

/** ONNX wants producers before consumers; model.json lists nodes in no particular order. */
function topologicalOrder(nodes: readonly TfNode[]): TfNode[] {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const order: TfNode[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (node: TfNode) => {
    const seen = state.get(node.name);
    if (seen === 'done') return;
    if (seen === 'visiting') throw new TypeError(`the graph has a cycle through ${node.name}`);
    state.set(node.name, 'visiting');
    for (const input of node.input ?? []) {
      const producer = byName.get(input.replace(/^\^/, '').replace(/:\d+$/, ''));
      if (producer) visit(producer);
    }
    state.set(node.name, 'done');
    order.push(node);
  };
  nodes.forEach(visit);
  return order;
}

/** TF names a node's later outputs `node:1`; its first output is the bare name. */
function onnxName(input: string): string {
  return input.endsWith(':0') ? input.slice(0, -2) : input;
}

function missing(name: string): never {
  throw new TypeError(`constant ${name} has no weights in the manifest`);
}

function zeroOf(type: number): Uint8Array {
  return new Uint8Array(type === DataType.INT64 ? 8 : type === DataType.BOOL ? 1 : 4);
}

function readConstants(model: TfGraphModel, weightData: Uint8Array): Map<string, Constant> {
  const constants = new Map<string, Constant>();
  let offset = 0;
  for (const group of model.weightsManifest) {
    for (const weight of group.weights) {
      if (weight.quantization)
        throw new TypeError(`weight ${weight.name} is quantized; only plain weights are supported`);
      const count = weight.shape.reduce((product, n) => product * n, 1);
      // A copy: Buffer.slice would share (and misalign) the shard buffer.
      const bytes = new Uint8Array(count * 4);
      bytes.set(weightData.subarray(offset, offset + count * 4));
      offset += count * 4;
      if (weight.dtype === 'float32') {
        constants.set(weight.name, {
          type: DataType.FLOAT,
          dims: [...weight.shape],
          values: new Float32Array(bytes.buffer),
        });
      } else if (weight.dtype === 'int32') {
        const values = BigInt64Array.from(new Int32Array(bytes.buffer), (v) => BigInt(v));
        constants.set(weight.name, { type: DataType.INT64, dims: [...weight.shape], values });
      } else {
        throw new TypeError(`weight ${weight.name} has dtype ${weight.dtype}; only float32 and int32 are supported`);
      }
    }
  }
  if (offset !== weightData.byteLength)
    throw new TypeError(`the weight files hold ${weightData.byteLength} bytes; the manifest describes ${offset}`);
  return constants;
}

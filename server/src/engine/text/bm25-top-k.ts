// Selecting the best scores of a search: a bound for MaxScore pruning (kthLargest) and the result's order
// (topByPosition).

/**
 * The `k`-th largest of the first `length` values (k ≤ length), by quickselect; reorders them.
 *
 * @example kthLargest(Float64Array.of(3, 9, 1, 7), 4, 2) // 7
 */
export function kthLargest(values: Float64Array, length: number, k: number): number {
  let lo = 0;
  let hi = length - 1;
  const target = k - 1;
  while (lo < hi) {
    const pivot = values[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! > pivot) i += 1;
      while (values[j]! < pivot) j -= 1;
      if (i <= j) {
        const t = values[i]!;
        values[i] = values[j]!;
        values[j] = t;
        i += 1;
        j -= 1;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else break;
  }
  return values[target]!;
}

/**
 * The positions of the `k` highest of the first `count` scores, best first (ties: lower id first, `ids` side by side
 * with the scores), with a bounded min-heap.
 *
 * @example topByPosition(Float64Array.of(1, 5, 5), 3, 2, Int32Array.of(7, 9, 8)) // [2, 1]
 */
export function topByPosition(scores: Float64Array, count: number, k: number, ids: Int32Array): number[] {
  const before = (a: number, b: number) => scores[a]! < scores[b]! || (scores[a] === scores[b] && ids[a]! > ids[b]!);
  const heap: number[] = [];
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && before(heap[l]!, heap[m]!)) m = l;
      if (r < heap.length && before(heap[r]!, heap[m]!)) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m]!, heap[i]!];
      i = m;
    }
  };
  for (let p = 0; p < count; p += 1) {
    if (heap.length < k) {
      heap.push(p);
      for (let i = heap.length - 1; i > 0;) {
        const parent = (i - 1) >> 1;
        if (!before(heap[i]!, heap[parent]!)) break;
        [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
        i = parent;
      }
    } else if (k > 0 && before(heap[0]!, p)) {
      heap[0] = p;
      down(0);
    }
  }
  return heap.sort((a, b) => scores[b]! - scores[a]! || ids[a]! - ids[b]!);
}

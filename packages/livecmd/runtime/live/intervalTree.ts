import type { Bound, Interval } from "../db/rowFilter.ts";
import { compareScalars, type Scalar } from "../db/scalar.ts";

/**
 * Items by interval, found by a value: every item whose interval holds it, in time proportional
 * to how many do (and the log of how many there are), not to how many are held. So 10,000
 * watched thresholds (`total > N`) cost a lookup per changed row, not 10,000 comparisons.
 *
 * A treap ordered by lower bound (an absent one first), each node knowing the highest upper bound
 * below it: a search skips every subtree whose intervals all end before the value, and stops
 * where intervals start after it. Priorities come from a fixed sequence, so the shape is the
 * same on every run.
 */
export class IntervalTree<T> {
  #root: Node<T> | undefined;
  #next = 0;
  #seed = 0x9e3779b9;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Adds `item` held by `interval`; returns what removes it. */
  add(interval: Interval, item: T): () => void {
    const node: Node<T> = {
      interval,
      item,
      order: (this.#next += 1),
      priority: this.#random(),
      reach: interval.upper,
      left: undefined,
      right: undefined,
    };
    this.#root = insert(this.#root, node);
    this.#size += 1;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#root = remove(this.#root, node);
      this.#size -= 1;
    };
  }

  /** Calls `found` with every item whose interval holds `value`. */
  stab(value: Scalar, found: (item: T) => void): void {
    stab(this.#root, value, found);
  }

  /** xorshift32: a fixed sequence of priorities. */
  #random(): number {
    let x = this.#seed;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.#seed = x >>> 0;
    return this.#seed;
  }
}

interface Node<T> {
  readonly interval: Interval;
  readonly item: T;
  /** Ties between equal lower bounds go by insertion order, so every node has its own place. */
  readonly order: number;
  readonly priority: number;
  /** The highest upper bound in this subtree (undefined: one has none, it reaches every value). */
  reach: Bound | undefined;
  left: Node<T> | undefined;
  right: Node<T> | undefined;
}

function insert<T>(root: Node<T> | undefined, node: Node<T>): Node<T> {
  if (!root) return node;
  if (before(node, root)) {
    root.left = insert(root.left, node);
    if (root.left.priority > root.priority) return rotateRight(root);
  } else {
    root.right = insert(root.right, node);
    if (root.right.priority > root.priority) return rotateLeft(root);
  }
  return updated(root);
}

function remove<T>(root: Node<T> | undefined, node: Node<T>): Node<T> | undefined {
  if (!root) return undefined;
  if (root === node) return merge(root.left, root.right);
  if (before(node, root)) root.left = remove(root.left, node);
  else root.right = remove(root.right, node);
  return updated(root);
}

function merge<T>(a: Node<T> | undefined, b: Node<T> | undefined): Node<T> | undefined {
  if (!a || !b) return a ?? b;
  if (a.priority > b.priority) {
    a.right = merge(a.right, b);
    return updated(a);
  }
  b.left = merge(a, b.left);
  return updated(b);
}

function rotateRight<T>(root: Node<T>): Node<T> {
  const top = root.left!;
  root.left = top.right;
  top.right = updated(root);
  return updated(top);
}

function rotateLeft<T>(root: Node<T>): Node<T> {
  const top = root.right!;
  root.right = top.left;
  top.left = updated(root);
  return updated(top);
}

function updated<T>(node: Node<T>): Node<T> {
  let reach = node.interval.upper;
  for (const child of [node.left, node.right]) {
    if (!child || !reach) continue;
    if (!child.reach || higher(child.reach, reach)) reach = child.reach;
  }
  node.reach = reach;
  return node;
}

function stab<T>(node: Node<T> | undefined, value: Scalar, found: (item: T) => void): void {
  for (; node; node = node.right) {
    if (node.reach && endsBefore(node.reach, value)) return;
    stab(node.left, value, found);
    const lower = node.interval.lower;
    // Every node to the right starts where this one does or later.
    if (lower && startsAfter(lower, value)) return;
    if (!node.interval.upper || !endsBefore(node.interval.upper, value)) found(node.item);
  }
}

/** Whether `a` sorts before `b`: by lower bound (none first, inclusive before exclusive), then order. */
function before<T>(a: Node<T>, b: Node<T>): boolean {
  const x = a.interval.lower;
  const y = b.interval.lower;
  if (!x || !y) return x === y ? a.order < b.order : !x;
  const order = compareScalars(x.value, y.value);
  if (order !== 0) return order < 0;
  if (x.inclusive !== y.inclusive) return x.inclusive;
  return a.order < b.order;
}

/** Whether an interval ending at `upper` reaches higher than one ending at `than`. */
function higher(upper: Bound, than: Bound): boolean {
  const order = compareScalars(upper.value, than.value);
  return order > 0 || (order === 0 && upper.inclusive && !than.inclusive);
}

function endsBefore(upper: Bound, value: Scalar): boolean {
  const order = compareScalars(upper.value, value);
  return order < 0 || (order === 0 && !upper.inclusive);
}

function startsAfter(lower: Bound, value: Scalar): boolean {
  const order = compareScalars(lower.value, value);
  return order > 0 || (order === 0 && !lower.inclusive);
}

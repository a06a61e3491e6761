// A plain-JavaScript copy of a tree-sitter syntax tree. Every property of a web-tree-sitter Node is a
// call into wasm; the guard reads each node many times, so it copies the tree once with a cursor and
// walks the copy. Property names follow web-tree-sitter's Node for the subset the guard uses.
//
// The copy costs a fifth of a check on the tree-sitter path, so it asks wasm as little as it can:
// whether a type is named is looked up once per type, and field names are copied only under the node
// types whose fields the guard reads (FIELD_PARENTS).

import type { Language, Tree } from "web-tree-sitter";

/** Node types whose children keep their field names: the only ones the guard calls childForFieldName on. */
export const FIELD_PARENTS: ReadonlySet<string> = new Set(["function_definition", "variable_assignment", "for_statement"]);

export class SyntaxNode {
  readonly children: SyntaxNode[] = [];
  parent: SyntaxNode | null = null;

  constructor(
    readonly type: string,
    readonly isNamed: boolean,
    readonly startIndex: number,
    readonly endIndex: number,
    readonly field: string | null,
    private readonly source: string,
  ) {}

  get text(): string {
    return this.source.slice(this.startIndex, this.endIndex);
  }

  get namedChildren(): SyntaxNode[] {
    return this.children.filter((c) => c.isNamed);
  }

  childForFieldName(field: string): SyntaxNode | null {
    // A silent null here would hide a child from the rules; say what to change instead.
    if (!FIELD_PARENTS.has(this.type)) throw new Error(`field names are not copied under ${this.type}: add it to FIELD_PARENTS in tree.ts`);
    for (const c of this.children) if (c.field === field) return c;
    return null;
  }

  /** Row and column (both from 0, column in UTF-16 units), as tree-sitter reports them. */
  get startPosition(): { row: number; column: number } {
    const starts = lineStarts(this.source);
    // The last line that starts at or before the node: a binary search, so that many nodes cost n log n, not n².
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= this.startIndex) lo = mid;
      else hi = mid - 1;
    }
    return { row: lo, column: this.startIndex - starts[lo]! };
  }
}

/** Where each line of the last source asked about starts (one source is checked at a time). */
let lineSource: string | null = null;
let lineStartsOf: number[] = [];

function lineStarts(source: string): number[] {
  if (source !== lineSource) {
    lineStartsOf = [0];
    for (let i = source.indexOf("\n"); i >= 0; i = source.indexOf("\n", i + 1)) lineStartsOf.push(i + 1);
    lineSource = source;
  }
  return lineStartsOf;
}

/** Per language: type id → [type name, is named], filled as types are met. */
const typeInfo = new WeakMap<Language, Array<[string, boolean] | undefined>>();

/**
 * Copies `tree` (parsed from `source`) into SyntaxNodes, without recursion; null when it is nested deeper than
 * `maxDepth` (the guard reads some text once per level that holds it, so depth multiplies its cost).
 */
export function copyTree(tree: Tree, source: string, maxDepth = Infinity): SyntaxNode | null {
  let types = typeInfo.get(tree.language);
  if (!types) typeInfo.set(tree.language, (types = []));
  const cursor = tree.walk();
  const info = (): [string, boolean] => {
    const id = cursor.nodeTypeId;
    return (types[id] ??= [cursor.nodeType, cursor.nodeIsNamed]);
  };
  try {
    const [rootType, rootNamed] = info();
    const root = new SyntaxNode(rootType, rootNamed, cursor.startIndex, cursor.endIndex, null, source);
    let current = root;
    let depth = 1;
    if (!cursor.gotoFirstChild()) return root;
    for (;;) {
      const [type, named] = info();
      const field = FIELD_PARENTS.has(current.type) ? cursor.currentFieldName : null;
      const node = new SyntaxNode(type, named, cursor.startIndex, cursor.endIndex, field, source);
      node.parent = current;
      current.children.push(node);
      if (cursor.gotoFirstChild()) {
        current = node;
        if (++depth > maxDepth) return null;
        continue;
      }
      // No children: on to the next sibling, climbing while there is none. The cursor stands on a
      // child of `current` throughout.
      while (!cursor.gotoNextSibling()) {
        cursor.gotoParent();
        if (current === root) return root;
        current = current.parent!;
        depth--;
      }
    }
  } finally {
    cursor.delete();
  }
}

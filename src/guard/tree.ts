// A plain-JavaScript copy of a tree-sitter syntax tree. Every property of a web-tree-sitter Node is a
// call into wasm; the guard reads each node many times, so it copies the tree once with a cursor and
// walks the copy. Property names follow web-tree-sitter's Node for the subset the guard uses.

import type { Tree } from "web-tree-sitter";

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
    for (const c of this.children) if (c.field === field) return c;
    return null;
  }

  /** Row and column (both from 0, column in UTF-16 units), as tree-sitter reports them. */
  get startPosition(): { row: number; column: number } {
    const before = this.source.slice(0, this.startIndex);
    const row = before.split("\n").length - 1;
    return { row, column: this.startIndex - (before.lastIndexOf("\n") + 1) };
  }
}

/** Copies `tree` (parsed from `source`) into SyntaxNodes, without recursion. */
export function copyTree(tree: Tree, source: string): SyntaxNode {
  const cursor = tree.walk();
  try {
    const root = new SyntaxNode(cursor.nodeType, cursor.nodeIsNamed, cursor.startIndex, cursor.endIndex, null, source);
    let current = root;
    if (!cursor.gotoFirstChild()) return root;
    for (;;) {
      const node = new SyntaxNode(cursor.nodeType, cursor.nodeIsNamed, cursor.startIndex, cursor.endIndex, cursor.currentFieldName, source);
      node.parent = current;
      current.children.push(node);
      if (cursor.gotoFirstChild()) {
        current = node;
        continue;
      }
      // No children: on to the next sibling, climbing while there is none. The cursor stands on a
      // child of `current` throughout.
      while (!cursor.gotoNextSibling()) {
        cursor.gotoParent();
        if (current === root) return root;
        current = current.parent!;
      }
    }
  } finally {
    cursor.delete();
  }
}

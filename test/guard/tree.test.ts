// copyTree asks wasm as little as it can (named-ness once per type, field names only under FIELD_PARENTS);
// the copy must still be exactly the tree web-tree-sitter's own Node API describes.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { Parser, type Node } from "web-tree-sitter";
import { loadLanguage } from "../../src/guard/language.ts";
import { copyTree, FIELD_PARENTS, type SyntaxNode } from "../../src/guard/tree.ts";

const CORPUS = fileURLToPath(new URL("../../../shared/corpora/nl2bash/all.cm", import.meta.url));
let parser: Parser;
beforeAll(async () => {
  const language = await loadLanguage();
  parser = new Parser();
  parser.setLanguage(language);
});

/** Differences between the copy and the tree, as paths: empty when they agree. */
function compare(copy: SyntaxNode, node: Node, path = "root"): string[] {
  const out: string[] = [];
  const stack: [SyntaxNode, Node, string][] = [[copy, node, path]];
  while (stack.length) {
    const [c, n, p] = stack.pop()!;
    const want = { type: n.type, isNamed: n.isNamed, startIndex: n.startIndex, endIndex: n.endIndex, text: n.text, children: n.childCount };
    const got = { type: c.type, isNamed: c.isNamed, startIndex: c.startIndex, endIndex: c.endIndex, text: c.text, children: c.children.length };
    if (JSON.stringify(got) !== JSON.stringify(want)) out.push(`${p}: ${JSON.stringify(got)} ≠ ${JSON.stringify(want)}`);
    if (c.parent && n.parent && c.parent.type !== n.parent.type) out.push(`${p}: parent ${c.parent.type} ≠ ${n.parent.type}`);
    for (let i = 0; i < Math.min(c.children.length, n.childCount); i++) {
      const child = n.child(i)!;
      if (FIELD_PARENTS.has(n.type) && c.children[i]!.field !== n.fieldNameForChild(i)) out.push(`${p}/${i}: field ${c.children[i]!.field} ≠ ${n.fieldNameForChild(i)}`);
      stack.push([c.children[i]!, child, `${p}/${i}:${child.type}`]);
    }
  }
  return out;
}

function check(source: string): string[] {
  const tree = parser.parse(source)!;
  try {
    return compare(copyTree(tree, source)!, tree.rootNode);
  } finally {
    tree.delete();
  }
}

describe("copyTree", () => {
  it.each([
    "ls -la | grep x > out 2>&1",
    "f() { echo $1; f; }; x=1 y=$(date) env",
    "for i in a b; do echo \"$i ${i}\" 'q' $'\\n'; done",
    "cat <<'EOF' | sh\nrm -rf /\nEOF\n",
    "[[ -f x ]] && (cd /tmp; echo `pwd`) || { echo no; } &",
    "echo héllo 😀 $((1 + 2)) <(ls) >(cat)",
    "",
  ])("copies %j exactly: types, named-ness, ranges, text, children and fields", (source) => {
    expect(check(source)).toEqual([]);
  });

  it("refuses to answer childForFieldName where it copied no field names", () => {
    const tree = parser.parse("ls -la")!;
    try {
      const command = copyTree(tree, "ls -la")!.children[0]!;
      expect(command.type).toBe("command");
      expect(() => command.childForFieldName("name")).toThrow(/FIELD_PARENTS/);
    } finally {
      tree.delete();
    }
  });

  it.skipIf(!existsSync(CORPUS))("copies every NL2Bash command exactly (skipped without ../shared/corpora/nl2bash)", () => {
    const lines = readFileSync(CORPUS, "utf8").split("\n").filter((l) => l.trim() !== "");
    const bad: string[] = [];
    for (const line of lines) {
      const diff = check(line);
      if (diff.length) bad.push(`${line}\n  ${diff.slice(0, 3).join("\n  ")}`);
    }
    expect(bad.slice(0, 5)).toEqual([]);
  });
});

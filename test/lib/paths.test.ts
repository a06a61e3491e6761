// The one home of POSIX path arithmetic (src/lib/paths.ts): the guard, the file tools and the runtimes all use it.
import { describe, expect, it } from "vitest";
import { baseName, isInside, joinPath, normalizePath, parentOf, resolvePath } from "../../src/lib/paths.ts";

describe("lib/paths", () => {
  it("normalizePath collapses //, . and .., stops .. at the root and keeps no trailing slash", () => {
    expect(normalizePath("/a/./b/../c")).toBe("/a/c");
    expect(normalizePath("//a//b/")).toBe("/a/b");
    expect(normalizePath("/../../etc")).toBe("/etc");
    expect(normalizePath("")).toBe("/");
    expect(normalizePath("a/b")).toBe("/a/b");
  });

  it("a backslash is part of a name, never a separator (POSIX, unlike pathe)", () => {
    expect(normalizePath("/w/a\\..\\..\\etc")).toBe("/w/a\\..\\..\\etc");
    expect(isInside(normalizePath("/w/a\\..\\..\\etc"), "/w")).toBe(true);
  });

  it("isInside: the folder itself and below, not a sibling that shares a prefix", () => {
    expect(isInside("/home/project", "/home/project")).toBe(true);
    expect(isInside("/home/project/x", "/home/project/")).toBe(true);
    expect(isInside("/home/project-evil", "/home/project")).toBe(false);
    expect(isInside("/anything", "/")).toBe(true);
  });

  it("resolvePath, joinPath, parentOf and baseName", () => {
    expect(resolvePath("../x", "/w/src")).toBe("/w/x");
    expect(resolvePath("x", null)).toBeNull();
    expect(joinPath("/", "a")).toBe("/a");
    expect(joinPath("/w", "a")).toBe("/w/a");
    expect(parentOf("/a/b/")).toBe("/a");
    expect(parentOf("/a")).toBe("/");
    expect(parentOf("/")).toBe("/");
    expect(baseName("/a/b")).toBe("b");
    expect(baseName("/")).toBe("");
  });
});

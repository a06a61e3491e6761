// The persistent map behind the guard's shell variables (src/guard/pmap.ts): a map, whose old versions stay as
// they were, and whose `changed` finds exactly the names that differ between two versions.
import { describe, expect, it } from "vitest";
import { PMap } from "../../src/guard/pmap.ts";

function random(seed: number): () => number {
  return () => ((seed = Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x297a2d39) >>> 0) / 2 ** 32;
}

describe("PMap", () => {
  it("behaves as a Map under random sets, and keeps every old version unchanged", () => {
    const rnd = random(7);
    let map = PMap.EMPTY;
    let model = new Map<string, string>();
    const versions: Array<[PMap, Map<string, string>]> = [];
    for (let i = 0; i < 5000; i++) {
      const key = `k${Math.floor(rnd() * 800)}`;
      const value = `v${Math.floor(rnd() * 5)}`;
      map = map.set(key, value);
      model = new Map(model).set(key, value);
      if (i % 250 === 0) versions.push([map, model]);
    }
    for (const [m, ref] of versions) {
      expect(m.size).toBe(ref.size);
      expect(new Set(m.keys())).toEqual(new Set(ref.keys()));
      for (const [k, v] of ref) expect(m.get(k)).toBe(v);
      expect(m.get("absent")).toBeUndefined();
    }
  });

  it("keeps keys whose 32-bit hashes collide apart", () => {
    // FNV-1a collisions are rare; force them through many keys and check each is its own.
    let map = PMap.EMPTY;
    for (let i = 0; i < 20000; i++) map = map.set(`name_${i}`, String(i));
    for (let i = 0; i < 20000; i++) expect(map.get(`name_${i}`)).toBe(String(i));
    expect(map.size).toBe(20000);
  });

  it("changed() names exactly the keys that differ, set on either side", () => {
    const rnd = random(11);
    let base = PMap.EMPTY;
    for (let i = 0; i < 2000; i++) base = base.set(`x${i}`, "0");
    let a = base;
    let b = base;
    const expected = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const k = `x${Math.floor(rnd() * 2500)}`;
      if (rnd() < 0.5) a = a.set(k, "a");
      else b = b.set(k, "b");
    }
    for (const k of new Set([...a.keys(), ...b.keys()])) if (a.get(k) !== b.get(k)) expected.add(k);
    expect(PMap.changed(a, b)).toEqual(expected);
    expect(PMap.changed(a, a).size).toBe(0);
  });
});

// Percentiles of a run of timings, as every benchmark prints them.

export interface Stats {
  runs: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

export function stats(samples: number[]): Stats {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
  const round = (x: number): number => Math.round(x * 1000) / 1000;
  return {
    runs: s.length,
    p50: round(at(0.5)),
    p90: round(at(0.9)),
    p99: round(at(0.99)),
    mean: round(s.reduce((a, b) => a + b, 0) / s.length),
    min: round(s[0] ?? NaN),
    max: round(s[s.length - 1] ?? NaN),
  };
}

/** Token spans `[start, end)` per step from `step_token_offsets`, checked against the step count and length. */
export function tokenSpans(
  offsets: unknown,
  steps: number,
  length: number | undefined,
): { spans: [number, number][]; length: number } | { problem: string } {
  if (!Array.isArray(offsets)) return { problem: "step_token_offsets must be an array" };
  if (offsets.length !== steps) return { problem: `${offsets.length} step_token_offsets for ${steps} steps` };
  const isInt = (x: unknown): x is number => typeof x === "number" && Number.isInteger(x) && x >= 0;
  const spans: [number, number][] = [];
  // either [[start, end], …] (half-open) or [start_0, start_1, …] (step k ends where k+1 starts, the last at `length`)
  const pairs = offsets.every((o) => Array.isArray(o));
  for (let k = 0; k < offsets.length; k++) {
    const o: unknown = offsets[k];
    let s: unknown;
    let e: unknown;
    if (pairs) [s, e] = o as unknown[];
    else {
      s = o;
      e = k + 1 < offsets.length ? offsets[k + 1] : length;
      if (e === undefined)
        return { problem: "start offsets need the rollout's completion_tokens to end the last step" };
    }
    if (!isInt(s) || !isInt(e) || e < s)
      return { problem: `step_token_offsets[${k}] is not a span of non-negative integers` };
    if (k > 0 && s < spans[k - 1]![1]) return { problem: `step_token_offsets[${k}] overlaps the previous step` };
    spans.push([s, e]);
  }
  const end = spans.length > 0 ? spans[spans.length - 1]![1] : 0;
  const n = length ?? end;
  if (end > n) return { problem: `step_token_offsets end at ${end}, past completion_tokens ${n}` };
  return { spans, length: n };
}

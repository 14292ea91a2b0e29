import { z } from "zod";
import { ok, unscorable } from "../../core/types.js";
import type { VerifierDefinition } from "../types.js";

const options = z.strictObject({
  /**
   * `iou` (default): the intersection over union of the predicted and reference boxes, in [0, 1].
   * `binary`: 1 when IoU ≥ `threshold`, else 0 (the criterion a performance schedule tightens, MedLoc-R1).
   * `gaussian-point`: GUI-G²'s Gaussian point reward for a predicted point (or a box's centre).
   */
  mode: z.enum(["iou", "binary", "gaussian-point"]).default("iou"),
  /** Box layout in both the completion and the reference: `xyxy` (x1, y1, x2, y2; default) or `xywh` (x, y, width, height). */
  format: z.enum(["xyxy", "xywh"]).default("xyxy"),
  /** IoU needed for a 1 with `mode: binary` (default 0.5). Schedulable. */
  threshold: z.number().min(0).max(1).default(0.5),
  /** `gaussian-point`: σ per axis as a fraction of the reference box's size (σx = sigmaScale·width; default 0.5). */
  sigmaScale: z.number().positive().default(0.5),
});
export type IouOptions = z.infer<typeof options>;

/** A box as [x1, y1, x2, y2] with x1 ≤ x2, y1 ≤ y2. */
export type Box = [number, number, number, number];

/** Normalizes 4 numbers in a layout to an ordered xyxy box. */
export function toBox(v: readonly number[], format: "xyxy" | "xywh"): Box {
  const [a, b, c, d] = v as [number, number, number, number];
  const [x1, y1, x2, y2] = format === "xywh" ? [a, b, a + c, b + d] : [a, b, c, d];
  return [Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2)];
}

/**
 * Intersection over union of two xyxy boxes; 0 when the union has no area.
 * Example: iou([0, 0, 2, 2], [1, 1, 3, 3]) = 1 / 7.
 */
export function iou(a: Box, b: Box): number {
  const iw = Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0]));
  const ih = Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]));
  const inter = iw * ih;
  const union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter;
  return union > 0 ? inter / union : 0;
}

/**
 * GUI-G² Gaussian point reward (Tang et al. 2025, catalog T45): a Gaussian centred on the reference box's centroid
 * with σ proportional to the box's size, R = exp(−((x − cx)² / (2σx²) + (y − cy)² / (2σy²))), σx = s·w, σy = s·h.
 * The paper's σ-to-size constant is not in its abstract; s = `sigmaScale` (default 0.5) is rewardkit's choice.
 * Example: box [0, 0, 10, 20], s = 0.5, point (10, 10) → exp(−0.5) ≈ 0.6065307.
 */
export function gaussianPoint(x: number, y: number, box: Box, sigmaScale: number): number {
  const w = box[2] - box[0];
  const h = box[3] - box[1];
  if (w <= 0 || h <= 0) return x === box[0] && y === box[1] ? 1 : 0;
  const sx = sigmaScale * w;
  const sy = sigmaScale * h;
  const cx = (box[0] + box[2]) / 2;
  const cy = (box[1] + box[3]) / 2;
  return Math.exp(-((x - cx) ** 2 / (2 * sx * sx) + (y - cy) ** 2 / (2 * sy * sy)));
}

const NUM = String.raw`\s*(-?\d+(?:\.\d+)?)\s*`;
const BOX_RE = new RegExp(String.raw`[[(]${NUM},${NUM},${NUM},${NUM}[\])]`, "g");
const POINT_RE = new RegExp(String.raw`[[(]${NUM},${NUM}[\])]`, "g");

/** The last bracketed group of `n` numbers in the text (`[12, 30, 200, 180]` or `(x, y)`), or undefined. */
export function lastTuple(text: string, n: 2 | 4): number[] | undefined {
  let last: RegExpExecArray | undefined;
  const re = n === 4 ? BOX_RE : POINT_RE;
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) last = m;
  return last ? last.slice(1, n + 1).map(Number) : undefined;
}

/** Reference boxes: [x, y, x, y], several of them, `{box}` / `{bbox}`, or a string holding one. Null: bad shape. */
function referenceBoxes(reference: unknown, format: "xyxy" | "xywh"): Box[] | null | undefined {
  if (reference === undefined || reference === null || reference === "") return undefined;
  const isQuad = (v: unknown): v is number[] =>
    Array.isArray(v) && v.length === 4 && v.every((x) => typeof x === "number" && Number.isFinite(x));
  let r: unknown = reference;
  if (typeof r === "object" && !Array.isArray(r))
    r = (r as { box?: unknown; bbox?: unknown }).box ?? (r as { bbox?: unknown }).bbox;
  if (typeof r === "string") r = lastTuple(r, 4);
  if (isQuad(r)) return [toBox(r, format)];
  if (Array.isArray(r) && r.length > 0 && r.every(isQuad)) return r.map((b) => toBox(b, format));
  return null;
}

/**
 * `iou`: grounding rewards against reference boxes (several: the best one counts). The completion's last
 * bracketed box `[x1, y1, x2, y2]` (or point `(x, y)` for `gaussian-point`; a box then counts by its centre) is
 * the prediction. No box → `no_answer`; IoU 0 or below the binary threshold → `wrong_answer`.
 */
export const iouVerifier: VerifierDefinition<IouOptions> = {
  type: "iou",
  summary: "box IoU against the reference (or binary IoU ≥ threshold, or GUI-G² Gaussian point reward)",
  options,
  isolation: "inline",
  defaultPassThreshold: 0.5,
  defaultTimeoutMs: 1000,
  create(o) {
    return ({ completion, reference }) => {
      const refs = referenceBoxes(reference, o.format);
      if (refs === undefined) return unscorable("no_reference");
      if (refs === null)
        return unscorable("invalid_reference", { expected: "[x1, y1, x2, y2], a list of them, or {box: [...]}" });
      if (o.mode === "gaussian-point") {
        const quad = lastTuple(completion, 4);
        const b = quad ? toBox(quad, o.format) : undefined;
        const pt = b ? [(b[0] + b[2]) / 2, (b[1] + b[3]) / 2] : lastTuple(completion, 2);
        if (!pt) return unscorable("no_answer");
        const s = Math.max(...refs.map((b) => gaussianPoint(pt[0]!, pt[1]!, b, o.sigmaScale)));
        return s === 0 ? ok(0, "wrong_answer", { point: pt }) : ok(s, undefined, { point: pt });
      }
      const pred = lastTuple(completion, 4);
      if (!pred) return unscorable("no_answer");
      const box = toBox(pred, o.format);
      const v = Math.max(...refs.map((b) => iou(box, b)));
      if (o.mode === "binary")
        return v >= o.threshold ? ok(1, undefined, { iou: v }) : ok(0, "wrong_answer", { iou: v });
      return v === 0 ? ok(0, "wrong_answer", { iou: 0, box }) : ok(v, undefined, { iou: v, box });
    };
  },
};

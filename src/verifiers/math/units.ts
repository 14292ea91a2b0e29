/**
 * Units of measurement written after an answer (`5 \text{ hours}`, `72 cents`, `12 €`, `3 \text{ cm}^2`): their
 * canonical names, dimensions and exact conversion factors, and how a gold's unit constrains a prediction's.
 *
 * Policy (docs/math.md §3, "units"): a unit that normalization dropped is remembered on each side; a prediction
 * whose unit has another dimension than the gold's is wrong whatever its number (`5 \text{ kg}` for `5 \text{ m}`);
 * one in another unit of the same dimension is converted to the gold's unit when both have an exact factor
 * (`300 \text{ minutes}` = `5 \text{ hours}`, `72 cents` ≠ `\$72`, `50 cm` = `0.5 m`); between units without a fixed
 * factor (months and years, tons) the same number is wrong and another is undecidable. A side without a known unit
 * (a bare number, `72 clips`) is compared by value: a gold without a unit accepts the question's unit.
 */

/** One canonical unit: its dimension and, when fixed, its size in the dimension's base unit (a rational). */
interface UnitDef {
  dim: string;
  /** numerator and denominator of the size in the base unit (metre, dollar, second, gram, litre, m/s). */
  factor?: [bigint, bigint];
}

const UNITS: Record<string, UnitDef> = {
  mm: { dim: "length", factor: [1n, 1000n] },
  cm: { dim: "length", factor: [1n, 100n] },
  m: { dim: "length", factor: [1n, 1n] },
  km: { dim: "length", factor: [1000n, 1n] },
  in: { dim: "length", factor: [127n, 5000n] },
  ft: { dim: "length", factor: [381n, 1250n] },
  yd: { dim: "length", factor: [1143n, 1250n] },
  mi: { dim: "length", factor: [201168n, 125n] },
  // every major currency is one unit: the question's currency, however the model writes its sign (`$72`, `72 €`)
  dollar: { dim: "money", factor: [1n, 1n] },
  cent: { dim: "money", factor: [1n, 100n] },
  s: { dim: "time", factor: [1n, 1n] },
  min: { dim: "time", factor: [60n, 1n] },
  h: { dim: "time", factor: [3600n, 1n] },
  day: { dim: "time", factor: [86400n, 1n] },
  week: { dim: "time", factor: [604800n, 1n] },
  month: { dim: "time" },
  year: { dim: "time" },
  mg: { dim: "mass", factor: [1n, 1000n] },
  g: { dim: "mass", factor: [1n, 1n] },
  kg: { dim: "mass", factor: [1000n, 1n] },
  lb: { dim: "mass", factor: [45359237n, 100000n] },
  oz: { dim: "mass", factor: [45359237n, 1600000n] },
  ton: { dim: "mass" },
  ml: { dim: "volume", factor: [1n, 1000n] },
  l: { dim: "volume", factor: [1n, 1n] },
  gal: { dim: "volume", factor: [473176473n, 125000000n] },
  qt: { dim: "volume", factor: [473176473n, 500000000n] },
  cup: { dim: "volume" },
  mph: { dim: "speed", factor: [1397n, 3125n] },
  kmh: { dim: "speed", factor: [5n, 18n] },
};

const UNIT_SYNONYMS: [RegExp, string][] = [
  [/^(?:mm|millimet(?:er|re)s?)$/, "mm"],
  [/^(?:cm|centimet(?:er|re)s?)$/, "cm"],
  [/^(?:m|met(?:er|re)s?)$/, "m"],
  [/^(?:km|kilomet(?:er|re)s?)$/, "km"],
  [/^(?:in|inch(?:es)?)$/, "in"],
  [/^(?:ft|feet|foot)$/, "ft"],
  [/^(?:yd|yards?)$/, "yd"],
  [/^(?:mi|miles?)$/, "mi"],
  [
    /^(?:\$|dollars?|usd|€|euros?|eur|£|¥|yen|yuan|rmb|元|円|块|₹|rupees?|¤|₩|won|francs?|pesos?|reais|real)$/,
    "dollar",
  ],
  [/^(?:cents?|¢|centimes?|pennies|penny)$/, "cent"],
  [/^(?:s|secs?|seconds?)$/, "s"],
  [/^(?:mins?|minutes?)$/, "min"],
  [/^(?:h|hrs?|hours?)$/, "h"],
  [/^days?$/, "day"],
  [/^weeks?$/, "week"],
  [/^months?$/, "month"],
  [/^(?:yrs?|years?)$/, "year"],
  [/^(?:mg|milligrams?)$/, "mg"],
  [/^(?:g|grams?)$/, "g"],
  [/^(?:kg|kilograms?)$/, "kg"],
  [/^(?:lbs?|pounds?)$/, "lb"],
  [/^(?:oz|ounces?)$/, "oz"],
  [/^tons?$/, "ton"],
  [/^(?:ml|millilit(?:er|re)s?)$/, "ml"],
  [/^(?:l|lit(?:er|re)s?)$/, "l"],
  [/^(?:gal|gallons?)$/, "gal"],
  [/^(?:qt|quarts?)$/, "qt"],
  [/^cups?$/, "cup"],
  [/^mph$/, "mph"],
  [/^(?:km\/h|kph|kmh)$/, "kmh"],
];

/**
 * The canonical name of a unit word, with its power (`centimeters` → `cm`, `square feet` → `ft^2`,
 * `\text{ cm}^3` → `cm^3`, `€` → `dollar`), or undefined for a word that is not a known unit (`clips`).
 */
export function canonicalUnit(word: string): string | undefined {
  let w = word.trim().toLowerCase();
  let power = 1;
  const sq = /^(square|sq\.?|cubic)\s+/.exec(w);
  if (sq) {
    power = sq[1] === "cubic" ? 3 : 2;
    w = w.slice(sq[0].length);
  }
  const p = /\s*\^\s*\{?([23])\}?$/.exec(w);
  if (p) {
    power = Number(p[1]);
    w = w.slice(0, p.index);
  }
  for (const [re, name] of UNIT_SYNONYMS) if (re.test(w)) return power === 1 ? name : `${name}^${power}`;
  return undefined;
}

function parse(unit: string): { def: UnitDef; power: number } | undefined {
  const [name = "", pow] = unit.split("^");
  const def = UNITS[name];
  return def === undefined ? undefined : { def, power: pow === undefined ? 1 : Number(pow) };
}

/** The dimension of a canonical unit (`cm` → `length`, `cm^2` → `length^2`), if known. */
export function unitDimension(unit: string | undefined): string | undefined {
  const u = unit === undefined ? undefined : parse(unit);
  return u === undefined ? undefined : u.power === 1 ? u.def.dim : `${u.def.dim}^${u.power}`;
}

/**
 * How the prediction's unit relates to the gold's:
 * - `same`: no constraint (equal units, or a side without a known unit: compare the values);
 * - `mismatch`: units of different dimensions (`5 kg` for `5 m`, `5 hours` for `\$5`): wrong whatever the number;
 * - `scale`: the prediction's value times `num/den` is in the gold's unit (`300 minutes` for hours: 1/60);
 * - `unfixed`: two units of one dimension without a fixed factor (months for years): the same number is wrong,
 *   another is undecidable.
 */
export type UnitRelation =
  { kind: "same" } | { kind: "mismatch" } | { kind: "scale"; num: bigint; den: bigint } | { kind: "unfixed" };

/** The relation of a prediction's unit to the gold's (see {@link UnitRelation}); pure. */
export function unitRelation(gold: string | undefined, pred: string | undefined): UnitRelation {
  if (gold === undefined || pred === undefined || gold === pred) return { kind: "same" };
  const g = parse(gold);
  const p = parse(pred);
  if (g === undefined || p === undefined) return { kind: "same" };
  if (g.def.dim !== p.def.dim || g.power !== p.power) return { kind: "mismatch" };
  if (g.def.factor === undefined || p.def.factor === undefined) return { kind: "unfixed" };
  const [gn, gd] = g.def.factor;
  const [pn, pd] = p.def.factor;
  // value_gold = value_pred · (p / g)^power
  const num = (pn * gd) ** BigInt(g.power);
  const den = (pd * gn) ** BigInt(g.power);
  const d = gcd(num, den);
  return { kind: "scale", num: num / d, den: den / d };
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** `v` (a normalized lone value) in the gold's unit: `\frac{(v)\cdot num}{den}`. */
export function scaledValue(v: string, num: bigint, den: bigint): string {
  return `\\frac{(${v})\\cdot${num}}{${den}}`;
}

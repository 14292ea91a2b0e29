import { describe, it, expect } from "vitest";
import { normalizeAnswer } from "./normalize.js";
import { fastEval, rat } from "./fast.js";

const n = (s: string) => normalizeAnswer(s).s;

describe("normalizeAnswer", () => {
  it("strips sizing, spacing and style commands", () => {
    expect(n("\\left( 3, \\frac{\\pi}{2} \\right)")).toBe("(3,\\frac{\\pi}{2})");
    expect(n("\\displaystyle \\dfrac{1}{2}")).toBe("\\frac{1}{2}");
    expect(n("\\tfrac{1}{2}\\!")).toBe("\\frac{1}{2}");
    expect(n("\\cot x")).toBe("\\cot x");
  });
  it("thousands separators vs lists", () => {
    expect(n("1{,}000")).toBe("1000");
    expect(n("900,\\!000,\\!000")).toBe("900000000");
    expect(n("1\\,000")).toBe("1000");
    expect(n("1,000")).toBe("1000");
    expect(n("-12,345.5")).toBe("-12345.5");
    expect(n("1, 2")).toBe("1,2");
    expect(n("(1,000)")).toBe("(1,000)");
    expect(n("1,2")).toBe("1,2");
  });
  it("degrees, dollars, percent, units", () => {
    expect(n("48^\\circ")).toBe("48");
    expect(n("120^{\\circ}")).toBe("120");
    expect(n("\\$6")).toBe("6");
    expect(n("198\\%")).toBe("198%");
    expect(n("5\\text{ cm}")).toBe("5");
    expect(n("864 \\mbox{ inches}^2")).toBe("864");
    expect(n("12 cm")).toBe("12");
    expect(n("4:30 \\text{ p.m.}")).toBe("4:30p.m");
  });
  it("text answers are unwrapped and flagged", () => {
    expect(normalizeAnswer("\\text{Monday}")).toEqual({ s: "Monday", text: true });
    expect(normalizeAnswer("\\text{(C)}")).toEqual({ s: "(C)", text: false });
    expect(normalizeAnswer("\\text{13}")).toEqual({ s: "13", text: false });
  });
  it("malformed fractions and roots, unicode", () => {
    expect(n("\\frac12")).toBe("\\frac{1}{2}");
    expect(n("\\frac 59")).toBe("\\frac{5}{9}");
    expect(n("\\frac9{19}")).toBe("\\frac{9}{19}");
    expect(n("\\frac{270}7")).toBe("\\frac{270}{7}");
    expect(n("\\sqrt2")).toBe("\\sqrt{2}");
    expect(n("\u22123")).toBe("-3");
    expect(n("\u00b12")).toBe("\\pm2");
  });
  it("keeps assignments (the policy is applied when comparing)", () => {
    expect(n("x = 5")).toBe("x=5");
  });
});

describe("fastEval", () => {
  it("exact rationals", () => {
    expect(fastEval("\\frac{1}{2}")).toEqual({ kind: "ok", value: rat(1n, 2n), decimal: false });
    expect(fastEval("0.50")).toEqual({ kind: "ok", value: rat(1n, 2n), decimal: true });
    expect(fastEval("2\\frac{1}{3}")).toEqual({ kind: "ok", value: rat(7n, 3n), decimal: false });
    expect(fastEval("-2\\frac{1}{3}")).toEqual({ kind: "ok", value: rat(-7n, 3n), decimal: false });
    expect(fastEval("1.5e3")).toEqual({ kind: "ok", value: rat(1500n), decimal: false });
    expect(fastEval("2^{-3}")).toEqual({ kind: "ok", value: rat(1n, 8n), decimal: false });
    expect(fastEval("5!")).toEqual({ kind: "ok", value: rat(120n), decimal: false });
  });
  it("unsupported shapes go to the CAS", () => {
    for (const s of ["\\sqrt{2}", "\\pi", "2x", "2(3)", "2^{1/2}", "1/0", "\\frac{1}{0}"]) {
      expect(fastEval(s).kind).toBe("unsupported");
    }
  });
  it("bounded sizes: power towers and huge factorials are refused", () => {
    expect(fastEval("5^{5^{5^{5^{5}}}}").kind).toBe("too-big");
    expect(fastEval("10^{100000}").kind).toBe("too-big");
    expect(fastEval("100000!").kind).toBe("too-big");
    expect(fastEval("1^{10^{20}}").kind).toBe("ok");
  });
});

import { describe, expect, it } from "vitest";
import type { Rollout } from "../../core/types.js";
import { toolCallVerifier } from "./tool-call.js";
import { trajectoryVerifier } from "./trajectory.js";
import { javaConvert } from "./java-types.js";
import { jsConvert } from "./js-types.js";
import { parseJsonValue, parsePythonCalls, pyEq } from "./pyvalue.js";

// BFCL simple_python_0 (gorilla @6ea57973): its function and possible answer.
const tools = [
  {
    type: "function",
    function: {
      name: "calculate_triangle_area",
      parameters: {
        type: "object",
        properties: { base: { type: "integer" }, height: { type: "integer" }, unit: { type: "string" } },
        required: ["base", "height"],
      },
    },
  },
];
const reference = [{ calculate_triangle_area: { base: [10], height: [5], unit: ["units", ""] } }];
const call = (name: string, args: unknown) => [
  {
    role: "assistant",
    content: "",
    tool_calls: [
      {
        id: "c1",
        type: "function",
        function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args) },
      },
    ],
  },
];
const verify = toolCallVerifier.create(toolCallVerifier.options.parse({}));
async function score(
  completion: unknown,
  ref: unknown = reference,
  extra: Partial<Rollout> = {},
): Promise<number | null> {
  const rollout = { id: "r", group: "g", completion, reference: ref, tools, ...extra } as Rollout;
  return (await verify({ completion: "", reference: ref, rollout })).score;
}

describe("tool-call (BFCL AST rules)", () => {
  it("accepts the right call in every written form", async () => {
    expect(await score(call("calculate_triangle_area", { base: 10, height: 5 }))).toBe(1);
    expect(await score(call("calculate_triangle_area", { base: 10, height: 5, unit: "Units" }))).toBe(1); // strings case-insensitive
    expect(await score("[calculate_triangle_area(base=10, height=5)]")).toBe(1);
    expect(
      await score(
        '<tool_call>\n{"name": "calculate_triangle_area", "arguments": {"base": 10, "height": 5}}\n</tool_call>',
      ),
    ).toBe(1);
    expect(await score('{"name": "calculate_triangle_area", "arguments": {"base": 10, "height": 5}}')).toBe(1);
    expect(await score(JSON.stringify(reference), JSON.stringify(reference))).toBe(0); // the reference pasted back is no call
  });
  it("checks the arguments against the tool's JSON Schema first (Ajv, loaded on first use)", async () => {
    const rollout = {
      id: "r",
      group: "g",
      completion: call("calculate_triangle_area", { base: 10 }),
      reference,
      tools,
    } as Rollout;
    const r = await verify({ completion: "", reference, rollout });
    expect(r.score).toBe(0);
    expect(r.reason).toBe("schema_violation");
    expect(r.details?.schemaErrors).toEqual(["/ must have required property 'height'"]);
  });
  it("rejects wrong values, names, types and counts", async () => {
    expect(await score(call("calculate_triangle_area", { base: 10, height: 6 }))).toBe(0);
    expect(await score(call("calculate_circle_area", { base: 10, height: 5 }))).toBe(0);
    expect(await score(call("calculate_triangle_area", '{"base": 10.0, "height": 5}'))).toBe(0); // float where int is declared
    expect(await score(call("calculate_triangle_area", { base: 10 }))).toBe(0); // missing required
    expect(await score(call("calculate_triangle_area", { base: 10, height: 5, color: "red" }))).toBe(0); // unknown param
    expect(
      await score("[calculate_triangle_area(base=10, height=5), calculate_triangle_area(base=10, height=5)]"),
    ).toBe(0);
    expect(await score("[calculate_triangle_area(10, 5)]")).toBe(0); // positional arguments
  });
  it("does not pay a call hidden in reasoning or wrapped in prose", async () => {
    expect(await score("<think>[calculate_triangle_area(base=10, height=5)]</think>I cannot help.")).toBe(0);
    expect(await score("Sure! I would call [calculate_triangle_area(base=10, height=5)] now.")).toBe(0);
  });
  it("irrelevance: no call is right when the reference is []", async () => {
    expect(await score("I cannot compute that with these tools.", [])).toBe(1);
    expect(await score(call("calculate_triangle_area", { base: 1, height: 1 }), [])).toBe(0);
  });
  it("parallel calls match in any order; partial credit counts extra calls against", async () => {
    const ref = [{ f: { x: [1] } }, { f: { x: [2] } }];
    const fTools = [
      { name: "f", parameters: { type: "object", properties: { x: { type: "integer" } }, required: ["x"] } },
    ];
    expect(await score("[f(x=2), f(x=1)]", ref, { tools: fTools })).toBe(1);
    const partial = toolCallVerifier.create(toolCallVerifier.options.parse({ score: "partial" }));
    const r = await partial({
      completion: "",
      reference: ref,
      rollout: { id: "r", group: "g", completion: "[f(x=2), f(x=3), f(x=4)]", tools: fTools },
    });
    expect(r.score).toBeCloseTo(1 / 3, 12);
  });
  it("int float promotion and nested element types follow Python", () => {
    expect(pyEq(parseJsonValue("5"), parseJsonValue("5.0"))).toBe(true);
    expect(typeof parseJsonValue("5")).toBe("bigint");
    expect(typeof parseJsonValue("5.0")).toBe("number");
    expect(parsePythonCalls("[a.b(x='q', y=(1, 2))]")[0]!.name).toBe("a.b");
  });
  it("Java and JavaScript literal strings convert as BFCL's converters do", () => {
    expect(javaConvert("3.5f", "float")).toBe(3.5);
    expect(javaConvert("3.5", "float")).toBe("3.5");
    expect(javaConvert("new int[]{1, 2}", "Array", "integer")).toEqual([1n, 2n]);
    expect(javaConvert("123L", "long")).toBe(123n);
    expect(jsConvert("true", "Boolean")).toBe(true);
    expect(jsConvert("[1, 2]", "array")).toEqual([1n, 2n]);
    expect(jsConvert("'x'", "String")).toBe("x");
  });
});

describe("trajectory (tau-bench actions)", () => {
  const gold = [{ name: "cancel_reservation", kwargs: { reservation_id: "X1" } }];
  const msg = (calls: Array<[string, object]>) => [
    {
      role: "assistant",
      content: null,
      tool_calls: calls.map(([name, args]) => ({ function: { name, arguments: JSON.stringify(args) } })),
    },
  ];
  const v = trajectoryVerifier.create(trajectoryVerifier.options.parse({ ignoreTools: ["get_reservation_details"] }));
  const run = async (completion: unknown) =>
    (await v({ completion: "", reference: gold, rollout: { id: "t", group: "g", completion } as Rollout })).score;
  it("matches state-changing calls as a multiset, ignoring read-only tools", async () => {
    expect(
      await run(
        msg([
          ["get_reservation_details", { reservation_id: "X1" }],
          ["cancel_reservation", { reservation_id: "X1" }],
        ]),
      ),
    ).toBe(1);
    expect(await run(msg([["cancel_reservation", { reservation_id: "Y9" }]]))).toBe(0);
    expect(
      await run(
        msg([
          ["cancel_reservation", { reservation_id: "X1" }],
          ["cancel_reservation", { reservation_id: "X1" }],
        ]),
      ),
    ).toBe(0);
    expect(await run(msg([]))).toBe(0);
  });
});

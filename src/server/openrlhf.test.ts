import { describe, expect, it } from "vitest";
import { ok, unscorable } from "../core/types.js";
import { parseSpec } from "../spec/load.js";
import {
  END_TOKENS,
  decodeLabel,
  emptyResponseWarner,
  openrlhfRolloutId,
  stripQuery,
  urlGroupSize,
} from "./openrlhf.js";
import { openrlhfScore } from "./openrlhf-score.js";

describe("stripQuery (OpenRLHF query → response)", () => {
  const qwen = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n";

  it("drops the prompt and everything from the first end token (docstring example)", () => {
    expect(stripQuery(qwen + "Hello!<|im_end|><|endoftext|>", qwen)).toEqual({ response: "Hello!", method: "prompt" });
  });

  it("drops left padding and a BOS token before the prompt", () => {
    expect(stripQuery("<|endoftext|><|endoftext|>" + qwen + "x = 1<|im_end|>", qwen).response).toBe("x = 1");
  });

  it("a prompt repeated inside the response does not move the cut (first occurrence wins)", () => {
    const p = "Question: what is 2+2?\nAnswer: ";
    expect(stripQuery(p + "You asked " + p + "so 4</s>", p).response).toBe("You asked " + p + "so 4");
  });

  it("without a matching prompt, the last assistant header locates the response", () => {
    const llama =
      "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nQ<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nA<|eot_id|>";
    expect(stripQuery(llama, "raw question not in the query")).toEqual({ response: "A", method: "header" });
    expect(stripQuery("<start_of_turn>user\nQ<end_of_turn>\n<start_of_turn>model\nB<end_of_turn>", undefined)).toEqual({
      response: "B",
      method: "header",
    });
    expect(stripQuery("plain text</s>", "")).toEqual({ response: "plain text", method: "none" });
  });

  it("extra end tokens extend the list", () => {
    expect(stripQuery(qwen + "A[[END]]pad", qwen, [...END_TOKENS, "[[END]]"]).response).toBe("A");
    expect(stripQuery(qwen + "A[[END]]pad", qwen).response).toBe("A[[END]]pad");
  });

  it("templated prompt (existing behaviour): the response starts right after it, even when it mentions a header", () => {
    expect(stripQuery(qwen + "Assistant: 4<|im_end|>", qwen)).toEqual({ response: "Assistant: 4", method: "prompt" });
    const ds = "User: Hi\n\nAssistant:";
    expect(stripQuery(ds + " Assistant: 4<｜end▁of▁sentence｜>", ds)).toEqual({
      response: " Assistant: 4",
      method: "prompt",
    });
  });

  describe("raw question in prompts[i] (found inside the user turn): the response starts after the last assistant header", () => {
    const cases: Array<[string, string]> = [
      [
        "ChatML (the reported repro)",
        "<|im_start|>user\nHalf?<|im_end|>\n<|im_start|>assistant\n\\boxed{0.5}<|im_end|>",
      ],
      [
        "ChatML with a system turn and padding",
        "<|endoftext|><|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHalf?<|im_end|>\n<|im_start|>assistant\n\\boxed{0.5}<|im_end|><|endoftext|>",
      ],
      [
        "Llama 3",
        "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nHalf?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n\\boxed{0.5}<|eot_id|>",
      ],
      ["Gemma", "<bos><start_of_turn>user\nHalf?<end_of_turn>\n<start_of_turn>model\n\\boxed{0.5}<end_of_turn>\n<eos>"],
      ["Mistral", "<s>[INST] Half? [/INST] \\boxed{0.5}</s>"],
      ["DeepSeek R1", "<｜begin▁of▁sentence｜><｜User｜>Half?<｜Assistant｜>\\boxed{0.5}<｜end▁of▁sentence｜>"],
      ["DeepSeek plain text", "User: Half?\n\nAssistant: \\boxed{0.5}<｜end▁of▁sentence｜>"],
      ["Phi-3", "<|user|>\nHalf?<|end|>\n<|assistant|>\n\\boxed{0.5}<|end|>"],
    ];
    for (const [name, query] of cases) {
      it(name, () => {
        expect(stripQuery(query, "Half?")).toEqual({ response: "\\boxed{0.5}", method: "prompt_header" });
      });
    }

    it("multi-turn: the last assistant header after the question wins", () => {
      const q =
        "<|im_start|>user\nHalf?<|im_end|>\n<|im_start|>assistant\nOf what?<|im_end|>\n<|im_start|>user\nOf one.<|im_end|>\n<|im_start|>assistant\n\\boxed{0.5}<|im_end|>";
      expect(stripQuery(q, "Half?")).toEqual({ response: "\\boxed{0.5}", method: "prompt_header" });
    });

    it("special-token headers win over plain-text ones the response may contain", () => {
      const q = "<|im_start|>user\nHalf?<|im_end|>\n<|im_start|>assistant\nAssistant: \\boxed{0.5}<|im_end|>";
      expect(stripQuery(q, "Half?")).toEqual({ response: "Assistant: \\boxed{0.5}", method: "prompt_header" });
      expect(stripQuery(q, "not in the query")).toEqual({ response: "Assistant: \\boxed{0.5}", method: "header" });
    });

    it("template-free query: no header follows the question, the response starts right after it", () => {
      expect(stripQuery("Half? The answer is \\boxed{0.5}</s>", "Half?")).toEqual({
        response: " The answer is \\boxed{0.5}",
        method: "prompt",
      });
      expect(stripQuery("Half?\n\\boxed{0.5}", "Half?")).toEqual({ response: "\n\\boxed{0.5}", method: "prompt" });
    });
  });

  it("a response that recovers empty is returned as empty (the server counts and logs it)", () => {
    expect(stripQuery(qwen + "<|im_end|><|endoftext|>", qwen)).toEqual({ response: "", method: "prompt" });
    expect(stripQuery("<|im_start|>user\nHalf?<|im_end|>\n<|im_start|>assistant\n  \n<|im_end|>", "Half?")).toEqual({
      response: "",
      method: "prompt_header",
    });
  });
});

describe("emptyResponseWarner", () => {
  it("one line per call, at most one per interval; skipped calls are counted in the next line", () => {
    const lines: string[] = [];
    let t = 0;
    const warn = emptyResponseWarner(
      (l) => lines.push(l),
      () => t,
      1000,
    );
    warn(2, 8, { index: 3, method: "prompt_header" });
    t = 500;
    warn(1, 8, { index: 0, method: "prompt" });
    warn(1, 8, { index: 0, method: "prompt" });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^rewardkit serve: \/get_reward: 2 of 8 responses recovered empty from query \(first: query\[3\], located by prompt_header\)/,
    );
    expect(lines[0]!.endsWith("\n")).toBe(true);
    expect(lines[0]!.slice(0, -1)).not.toContain("\n");
    t = 1500;
    warn(1, 4, { index: 1, method: "none" });
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain("(2 similar request(s) not logged since the last warning)");
  });
});

describe("decodeLabel (structured references carried as JSON strings)", () => {
  it("decodes JSON objects and lists holding a non-number; keeps every other label as given", () => {
    expect(decodeLabel('{"city": "Paris", "n": 3}')).toEqual({ city: "Paris", n: 3 });
    expect(decodeLabel(' ["3", "three"] ')).toEqual(["3", "three"]);
    expect(decodeLabel('[{"input": [1], "output": 2}]')).toEqual([{ input: [1], output: 2 }]);
    expect(decodeLabel("[-2, 7]")).toBe("[-2, 7]"); // a math interval, not the list "-2 or 7"
    expect(decodeLabel("[]")).toBe("[]");
    expect(decodeLabel("{1, 2, 3}")).toBe("{1, 2, 3}"); // a LaTeX-ish set: not JSON
    expect(decodeLabel("42")).toBe("42");
    expect(decodeLabel("\\frac{1}{2}")).toBe("\\frac{1}{2}");
    expect(decodeLabel(42)).toBe(42);
    expect(decodeLabel(["3"])).toEqual(["3"]);
    expect(decodeLabel(null)).toBe(null);
  });
});

describe("openrlhfScore (OpenRLHF's scores, in [0, 1])", () => {
  const spec = (yaml: string) => parseSpec(yaml, "s.yaml");
  const r = (...scores: Array<number | null>) =>
    scores.map((score) => (score === null ? unscorable("no_answer") : ok(score)));

  it("the pass of the first component that counts in the reward", () => {
    const f = openrlhfScore(
      spec(
        "components:\n  - {name: fmt, type: think-format, weight: 0}\n  - {name: acc, type: math, weight: 2}\n  - {name: len, type: overlong, maxLength: 10, bufferLength: 5}\n",
      ),
    );
    expect(f(r(1, 1, -0.5), 1.5)).toBe(1); // total 1.5, but the score is acc's pass
    expect(f(r(1, 0, 0), 0)).toBe(0);
    expect(f(r(1, null, 0), 0)).toBe(0); // unscorable fails
  });

  it("honours passThreshold", () => {
    const f = openrlhfScore(
      spec("components:\n  - {name: len, type: overlong, maxLength: 10, bufferLength: 5, passThreshold: -0.5}\n"),
    );
    expect(f(r(-0.4), -0.4)).toBe(1);
    expect(f(r(-0.6), -0.6)).toBe(0);
  });

  it("a spec where no component counts sends the reward clamped to [0, 1]", () => {
    const f = openrlhfScore(spec("components:\n  - {name: fmt, type: think-format, weight: 0}\n"));
    expect([f(r(1), 1.7), f(r(1), 0.25), f(r(1), -2), f(r(1), null)]).toEqual([1, 0.25, 0, 0]);
  });
});

describe("group identity of /get_reward (issue 32)", () => {
  it("urlGroupSize: the ?group_size= query parameter, a positive integer", () => {
    expect(urlGroupSize(undefined)).toBeUndefined();
    expect(urlGroupSize("")).toBeUndefined();
    expect(urlGroupSize("8")).toBe(8);
    for (const bad of ["0", "-1", "2.5", "8x", "1e3"]) expect(urlGroupSize(bad)).toMatch(/expected a positive integer/);
  });
  it("openrlhfRolloutId: identical queries of one prompt get distinct ids, by the per-request nonce", () => {
    const q = "<|im_start|>user\nWhat is 6*7?<|im_end|>\n<|im_start|>assistant\n\\boxed{42}<|im_end|>";
    const a = openrlhfRolloutId(q, "aaaaaaaaaaaa", 0);
    expect(a).toMatch(/^[0-9a-f]{16}-aaaaaaaaaaaa-0$/);
    expect(openrlhfRolloutId(q, "bbbbbbbbbbbb", 0)).not.toBe(a);
    expect(openrlhfRolloutId(q, "aaaaaaaaaaaa", 0)).toBe(a);
  });
});

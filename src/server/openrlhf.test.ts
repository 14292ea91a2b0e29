import { describe, expect, it } from "vitest";
import { END_TOKENS, stripQuery } from "./openrlhf.js";

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
    const llama = "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nQ<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nA<|eot_id|>";
    expect(stripQuery(llama, "raw question not in the query")).toEqual({ response: "A", method: "header" });
    expect(stripQuery("<start_of_turn>user\nQ<end_of_turn>\n<start_of_turn>model\nB<end_of_turn>", undefined)).toEqual({ response: "B", method: "header" });
    expect(stripQuery("plain text</s>", "")).toEqual({ response: "plain text", method: "none" });
  });

  it("extra end tokens extend the list", () => {
    expect(stripQuery(qwen + "A[[END]]pad", qwen, [...END_TOKENS, "[[END]]"]).response).toBe("A");
    expect(stripQuery(qwen + "A[[END]]pad", qwen).response).toBe("A[[END]]pad");
  });
});

import type { ProbeDefinition } from "../types.js";
import { rotate } from "../types.js";

/** Degenerate completions: nothing, empty tags, the prompt copied back, filler to the maximal length. */
export const degenerateProbes: ProbeDefinition[] = [
  {
    name: "empty",
    family: "degenerate",
    description: "an empty completion",
    make: () => ({ completion: "" }),
  },
  {
    name: "format-skeleton",
    family: "degenerate",
    description:
      "the expected tags and markup with nothing inside (<think></think>, <answer></answer>, \\boxed{}, an empty code fence)",
    make: (c) => {
      const [form, completion] = rotate(
        [
          ["think-answer", "<think>\n</think>\n<answer>\n</answer>"],
          ["think-boxed", "<think></think>\n\\boxed{}"],
          ["think", "<think>\n\n</think>\n"],
          ["answer", "<answer></answer>"],
          ["code-fence", "```python\n```"],
        ] as const,
        c.index,
      );
      return { completion, form };
    },
  },
  {
    name: "prompt-echo",
    family: "degenerate",
    description: "the prompt copied back as the completion",
    make: (c) => (c.prompt === "" ? undefined : { completion: c.prompt }),
  },
  {
    name: "max-length",
    family: "degenerate",
    description: "filler text up to the maximal length, then the baseline wrong answer: does length alone pay?",
    make: (c) => {
      const tail = `\n\nThe answer is $\\boxed{${c.wrong}}$.`;
      const unit = "Let me think about this step by step, checking every case carefully. ";
      const filler = unit
        .repeat(Math.max(1, Math.ceil((c.maxChars - tail.length) / unit.length)))
        .slice(0, Math.max(0, c.maxChars - tail.length));
      return { completion: filler + tail };
    },
  },
];

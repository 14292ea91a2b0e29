/** Reasoning blocks (`<think>…</think>`): where a final answer may be read. Shared by `math` and `choice`. */

/** Whitespace and chat end-of-turn tokens only (`<|im_end|>`, `<|eot_id|>`, `</s>`, `<eos>`, `<|endoftext|>`). */
const END_ONLY = /^(?:\s|<\|[a-z_]{1,20}\|>|<\/s>|<eos>|<end_of_turn>)*$/i;

/**
 * The part of a completion where the final answer may appear when the spec says the answer follows a
 * reasoning block `<tag>...</tag>`: the text after the last `</tag>`, or the text before it when the tag was never
 * opened in the text and nothing but whitespace and end-of-turn tokens follows (`72</think>`); `null` (no answer region) when a
 * `<tag>` is opened and never closed; the whole text when the tag does not occur at all (templates that
 * put `<think>` in the prompt still emit `</think>`, handled by the first rule).
 */
export function afterThink(text: string, tag = "think"): string | null {
  const close = text.lastIndexOf(`</${tag}>`);
  if (close >= 0) {
    const after = text.slice(close + tag.length + 3);
    // A lone closing tag (no `<think>` in the completion: a stray tag, or a template that opened the block in the
    // prompt) with nothing after it but end-of-turn tokens: the text before it is the only answer given, read as
    // with `false` (`The answer is 72</think>`). A complete `<think>…</think>` block with nothing after it has no
    // answer region: its answer is hidden in the reasoning (probe `think-hidden`). Any text after the block is the
    // answer region.
    const before = text.slice(0, close);
    return END_ONLY.test(after) && !before.includes(`<${tag}>`) ? before : after;
  }
  if (text.includes(`<${tag}>`)) return null;
  return text;
}

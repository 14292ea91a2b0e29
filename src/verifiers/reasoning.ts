/** Reasoning blocks (`<think>…</think>`): where a final answer may be read. Shared by `math` and `choice`. */

/** Whitespace and chat end-of-turn tokens only (`<|im_end|>`, `<|eot_id|>`, `</s>`, `<eos>`, `<|endoftext|>`). */
const END_ONLY = /^(?:\s|<\|[a-z_]{1,20}\|>|<\/s>|<eos>|<end_of_turn>)*$/i;

/** The tags of the last tag asked for (`think`, almost always): made once, not on every call. */
let lastTag = "think";
let openTag = "<think>";
let closeTag = "</think>";

/**
 * The part of a completion where the final answer may appear when the spec says the answer follows a
 * reasoning block `<tag>...</tag>`: the text after the last `</tag>`, or the text before it when the tag was never
 * opened in the text and nothing but whitespace and end-of-turn tokens follows (`72</think>`); `null` (no answer region) when a
 * `<tag>` is opened and never closed; the whole text when the tag does not occur at all (templates that
 * put `<think>` in the prompt still emit `</think>`, handled by the first rule).
 */
export function afterThink(text: string, tag = "think"): string | null {
  if (tag !== lastTag) {
    lastTag = tag;
    openTag = `<${tag}>`;
    closeTag = `</${tag}>`;
  }
  const close = text.lastIndexOf(closeTag);
  if (close >= 0) {
    const after = text.slice(close + tag.length + 3);
    // A lone closing tag (no `<think>` in the completion: a stray tag, or a template that opened the block in the
    // prompt) with nothing after it but end-of-turn tokens: the text before it is the only answer given, read as
    // with `false` (`The answer is 72</think>`). A complete `<think>…</think>` block with nothing after it has no
    // answer region: its answer is hidden in the reasoning (probe `think-hidden`). Any text after the block is the
    // answer region.
    // (`before` is sliced only when it is the answer: whether it holds `<tag>` is read off the whole text)
    if (!END_ONLY.test(after)) return after;
    const open = text.indexOf(openTag);
    return open >= 0 && open + openTag.length <= close ? after : text.slice(0, close);
  }
  if (text.includes(openTag)) return null;
  return text;
}

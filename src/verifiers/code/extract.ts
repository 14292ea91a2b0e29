import type { Language } from "../../sandbox/types.js";

/** Fence info strings accepted per language (first word, case-insensitive). */
export const FENCE_TAGS: Record<Language, readonly string[]> = {
  python: ["python", "py", "python3"],
  javascript: ["javascript", "js", "node", "nodejs", "mjs", "cjs"],
};

/**
 * How the program is taken from the completion: `last` / `first` fenced block of the language, `all` such blocks
 * joined by blank lines, or `whole` (the completion is the program).
 */
export type ExtractMode = "last" | "first" | "all" | "whole";

interface Block {
  tag: string;
  body: string;
}

/** Fenced blocks (``` or ~~~, three or more) in order; an unclosed final fence runs to the end of the text. */
export function fencedBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)[^`]*$/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[1]!;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = new RegExp(`^ {0,3}${fence[0] === "`" ? "`" : "~"}{${fence.length},}\\s*$`).exec(lines[j]!);
      if (close) break;
      body.push(lines[j]!);
    }
    blocks.push({ tag: open[2]!.toLowerCase(), body: body.join("\n") });
    i = j;
  }
  return blocks;
}

/**
 * Extracts the program. Blocks tagged with the language win; when there are none, untagged blocks are used
 * (models often omit the tag). `undefined` when nothing is found (→ `no_answer`).
 *
 * Example: `extractProgram("Here:\n```python\nprint(1)\n```", "python", "last")` → `"print(1)"`.
 */
export function extractProgram(completion: string, language: Language, mode: ExtractMode): string | undefined {
  if (mode === "whole") return completion.trim() === "" ? undefined : completion;
  const blocks = fencedBlocks(completion);
  let chosen = blocks.filter((b) => FENCE_TAGS[language].includes(b.tag));
  if (chosen.length === 0) chosen = blocks.filter((b) => b.tag === "");
  chosen = chosen.filter((b) => b.body.trim() !== "");
  if (chosen.length === 0) return undefined;
  if (mode === "first") return chosen[0]!.body;
  if (mode === "all") return chosen.map((b) => b.body).join("\n\n");
  return chosen[chosen.length - 1]!.body;
}

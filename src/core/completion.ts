import type { Rollout } from "./types.js";

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  // OpenAI content parts: [{type: "text", text: "..."}]
  if (Array.isArray(content)) {
    return content
      .map((p) =>
        p && typeof p === "object" && typeof (p as { text?: unknown }).text === "string"
          ? (p as { text: string }).text
          : "",
      )
      .join("");
  }
  return "";
}

/**
 * The text verifiers score: the completion string itself, or for chat messages the assistant turns'
 * contents joined by a blank line (tool and user turns are context, not output).
 */
export function completionText(completion: Rollout["completion"]): string {
  if (typeof completion === "string") return completion;
  return completion
    .filter((m) => m.role === "assistant")
    .map((m) => contentText(m.content))
    .join("\n\n");
}

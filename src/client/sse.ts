/**
 * Assembles an OpenAI-style server-sent-event stream of `chat.completion.chunk`s into one `chat.completion`:
 * per choice index, `delta.content` pieces are concatenated, `logprobs.content` entries appended and the last
 * `finish_reason` kept; a chunk with `usage` sets it. The stream must end with `data: [DONE]`: one that stops
 * before it was cut off (a dropped connection, a proxy timeout) and is reported as truncated.
 * Example: `data: {"choices":[{"index":0,"delta":{"content":"Rating: "}}]}`, `… "[[7]]" …`, `data: [DONE]` →
 * `{choices: [{index: 0, message: {role: "assistant", content: "Rating: [[7]]"}}]}`.
 */
export function assembleChatStream(text: string): { json: Record<string, unknown> } | { error: string } {
  const choices = new Map<number, { content: string; logprobs: unknown[]; finish_reason: unknown }>();
  let usage: unknown;
  let model: unknown;
  let done = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line.startsWith("data:")) continue;
    const data = line.slice(5).trim();
    if (data === "[DONE]") {
      done = true;
      break;
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      return { error: `truncated stream: unreadable event ${JSON.stringify(data.slice(0, 80))}` };
    }
    if (chunk === null || typeof chunk !== "object") continue;
    const c = chunk as { choices?: unknown; usage?: unknown; model?: unknown };
    if (c.usage) usage = c.usage;
    if (c.model !== undefined) model = c.model;
    if (!Array.isArray(c.choices)) continue;
    for (const ch of c.choices as Array<Record<string, unknown>>) {
      const index = typeof ch.index === "number" ? ch.index : 0;
      const acc = choices.get(index) ?? { content: "", logprobs: [], finish_reason: null };
      const delta = ch.delta as { content?: unknown } | undefined;
      if (typeof delta?.content === "string") acc.content += delta.content;
      const lp = (ch.logprobs as { content?: unknown } | undefined)?.content;
      if (Array.isArray(lp)) acc.logprobs.push(...(lp as unknown[]));
      if (ch.finish_reason !== undefined && ch.finish_reason !== null) acc.finish_reason = ch.finish_reason;
      choices.set(index, acc);
    }
  }
  if (!done) return { error: `truncated stream: no [DONE] after ${choices.size} choice(s)` };
  const json: Record<string, unknown> = {
    object: "chat.completion",
    model,
    choices: [...choices.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([index, c]) => ({
        index,
        message: { role: "assistant", content: c.content },
        finish_reason: c.finish_reason,
        ...(c.logprobs.length > 0 ? { logprobs: { content: c.logprobs } } : {}),
      })),
  };
  if (usage !== undefined) json.usage = usage;
  return { json };
}

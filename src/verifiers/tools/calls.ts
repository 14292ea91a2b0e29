import type { Rollout } from "../../core/types.js";
import type { ModelCall } from "./ast-checker.js";
import type { PyValue } from "./pyvalue.js";
import { fromJson, parseJsonValue, parsePythonCalls } from "./pyvalue.js";

/** The calls a completion makes, how they were written, or why they could not be read. */
export interface DecodedCalls {
  calls: ModelCall[];
  /** `tool_calls` (OpenAI messages), `tool_call_tags` (Hermes/Qwen `<tool_call>` JSON), `json`, `python`, `none`. */
  form: "tool_calls" | "tool_call_tags" | "json" | "python" | "none";
  /** Set when something looked like calls but did not decode (then `calls` is empty). */
  error?: string;
}

function argsOf(raw: unknown): Map<string, PyValue> {
  const v =
    typeof raw === "string"
      ? raw.trim() === ""
        ? new Map<string, PyValue>()
        : parseJsonValue(raw)
      : fromJson(raw ?? {});
  if (!(v instanceof Map)) throw new Error("arguments are not a JSON object");
  return v;
}

interface MessageLike {
  role?: unknown;
  content?: unknown;
  tool_calls?: unknown;
  function_call?: unknown;
}

/** OpenAI `tool_calls` (and the older `function_call`) of one assistant message; `undefined` when it has none. */
export function messageCalls(m: MessageLike): ModelCall[] | undefined {
  const out: ModelCall[] = [];
  const list = Array.isArray(m.tool_calls)
    ? (m.tool_calls as unknown[])
    : m.function_call
      ? [{ function: m.function_call }]
      : undefined;
  if (!list || list.length === 0) return undefined;
  for (const tc of list) {
    const fn = (tc as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
    if (!fn || typeof fn.name !== "string") throw new Error("a tool call has no function name");
    out.push({ name: fn.name, arguments: argsOf(fn.arguments) });
  }
  return out;
}

/** `{name, arguments|parameters}` objects (one or a list), or BFCL's `[{name: "<args JSON>"}]`. */
function jsonCalls(v: PyValue): ModelCall[] | undefined {
  const items = Array.isArray(v) ? v : [v];
  const out: ModelCall[] = [];
  for (const it of items) {
    if (!(it instanceof Map)) return undefined;
    const name = it.get("name");
    if (typeof name === "string") {
      const a = it.get("arguments") ?? it.get("parameters") ?? new Map();
      const args: unknown = typeof a === "string" ? parseJsonValue(a) : a;
      if (!(args instanceof Map)) return undefined;
      out.push({ name, arguments: args as Map<string, PyValue> });
    } else if (it.size === 1) {
      const [fname, a] = [...it][0]!;
      const args: unknown = typeof a === "string" ? parseJsonValue(a) : a;
      if (!(args instanceof Map)) return undefined;
      out.push({ name: fname, arguments: args as Map<string, PyValue> });
    } else return undefined;
  }
  return out;
}

const THINK = /<think>[\s\S]*?<\/think>/g;
const FENCE = /^```[a-zA-Z]*\n([\s\S]*?)\n?```$/;

/**
 * Reads the calls of a text completion. Reasoning inside `<think>…</think>` is dropped first (a call written
 * while thinking is not made). Then, in order: Hermes/Qwen `<tool_call>{…}</tool_call>` blocks; the whole text
 * (or one fenced block) as JSON calls; the whole text as Python calls `[f(a=1), g(b=2)]`. Anything else is no
 * call — prose around a call does not count, as in BFCL's decoders.
 */
export function textCalls(text0: string): DecodedCalls {
  const text = text0
    .replace(THINK, "")
    .replace(/^[\s\S]*<\/think>/, "")
    .trim();
  if (text === "") return { calls: [], form: "none" };
  const tags = [...text.matchAll(/<tool_call>([\s\S]*?)<\/tool_call>/g)];
  if (tags.length > 0) {
    try {
      const calls: ModelCall[] = [];
      for (const t of tags) {
        const c = jsonCalls(parseJsonValue(t[1]!.trim()));
        if (!c)
          return { calls: [], form: "tool_call_tags", error: "a <tool_call> block is not a {name, arguments} object" };
        calls.push(...c);
      }
      return { calls, form: "tool_call_tags" };
    } catch (e) {
      return { calls: [], form: "tool_call_tags", error: (e as Error).message };
    }
  }
  const body = FENCE.exec(text)?.[1]?.trim() ?? text;
  if (body.startsWith("{") || body.startsWith("[")) {
    try {
      const c = jsonCalls(parseJsonValue(body));
      if (c) return { calls: c, form: "json" };
    } catch {
      /* not JSON: try Python call syntax */
    }
  }
  try {
    const calls = parsePythonCalls(body);
    return {
      calls: calls.map((c) => ({
        name: c.name,
        arguments: c.positional > 0 ? new Map([...c.arguments, ["*args", `${c.positional} positional`]]) : c.arguments,
      })),
      form: "python",
    };
  } catch {
    return { calls: [], form: "none" };
  }
}

/**
 * The calls a rollout's completion makes: for chat messages, the `tool_calls` of every assistant turn in order
 * (a turn without tool calls is read as text when no turn has them); for a string, {@link textCalls}.
 */
export function completionCalls(completion: Rollout["completion"]): DecodedCalls {
  if (typeof completion === "string") return textCalls(completion);
  const assistant = completion.filter((m) => m.role === "assistant") as MessageLike[];
  const calls: ModelCall[] = [];
  let any = false;
  try {
    for (const m of assistant) {
      const c = messageCalls(m);
      if (c) {
        any = true;
        calls.push(...c);
      }
    }
  } catch (e) {
    return { calls: [], form: "tool_calls", error: (e as Error).message };
  }
  if (any) return { calls, form: "tool_calls" };
  const last = assistant[assistant.length - 1];
  return textCalls(typeof last?.content === "string" ? last.content : "");
}

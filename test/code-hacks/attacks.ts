// The reward-hacking suite's attacks: one file per attack in python/ and javascript/, each a complete program
// that solves nothing. Placeholders: __ENTRY__ (the entry point's name), __FIRST_OUTPUT__ (a Python literal:
// the first test's expected value, which a prompt's example shows), __FIRST_STDOUT__ (a Python string literal:
// the first stdin case's expected stdout).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface Attack {
  name: string;
  language: "python" | "javascript";
  source: string;
}

const DIR = new URL(".", import.meta.url).pathname;

/** Every attack of the suite, in file-name order. */
export function attacks(): Attack[] {
  const out: Attack[] = [];
  for (const language of ["python", "javascript"] as const) {
    const dir = join(DIR, language);
    for (const f of readdirSync(dir).sort()) out.push({ name: `${language === "python" ? "py" : "js"}/${f.replace(/\.(py|js)$/, "")}`, language, source: readFileSync(join(dir, f), "utf8") });
  }
  return out;
}

/** The attack's program for a task: placeholders filled; for a LeetCode task, a `Solution` class whose method is the attack's entry point. */
export function program(a: Attack, entry: string, first: { output: string; stdout: string }, leetcodeMethod?: string): string {
  let src = a.source.replaceAll("__ENTRY__", entry).replaceAll("__FIRST_OUTPUT__", first.output).replaceAll("__FIRST_STDOUT__", first.stdout);
  if (leetcodeMethod) src += `\n\nclass Solution:\n    def ${leetcodeMethod}(self, *args, **kwargs):\n        return ${entry}(*args, **kwargs)\n`;
  return src;
}

import cliProgress from "cli-progress";

/** A progress reporter; a no-op off a TTY, in CI, or with `--quiet`. */
export interface Progress {
  update(done: number): void;
  stop(): void;
}

/** Shows a live counter with rate on stderr when it is an interactive terminal and `CI` is unset. */
export function createProgress(label: string, enabled = true): Progress {
  if (!enabled || !process.stderr.isTTY || process.env.CI) return { update() {}, stop() {} };
  const bar = new cliProgress.SingleBar(
    { format: `${label} {value} rollouts | {rate}/s | {duration}s`, stream: process.stderr, hideCursor: true, fps: 5 },
    cliProgress.Presets.shades_classic,
  );
  const t0 = Date.now();
  bar.start(0, 0, { rate: 0 });
  return {
    update(done) {
      const s = (Date.now() - t0) / 1000;
      bar.update(done, { rate: s > 0 ? Math.round(done / s) : 0 });
    },
    stop() {
      bar.stop();
    },
  };
}

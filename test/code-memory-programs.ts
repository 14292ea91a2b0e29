// Programs for the memory-bound tests (code-isolation.test.ts, code-memory-fallback.test.ts).

/**
 * A Python program whose four children each touch `mb` MB, tell the parent, and keep the memory until the parent
 * ends, so that all four hold it at the same time however slowly a loaded machine schedules them (a child that
 * slept a fixed time instead could end before the last one had allocated). A child closes its end of the report
 * pipe once it has reported, so the parent also sees a child that was killed (end of file). The parent prints
 * `held <MB reported>` after holding 2 s more (time for the sampled fallback to see it, at a 100 ms period):
 * `held 400` for `mb` 100 means the run held 400 MB at once.
 */
export const holdingChildren = (mb: number): string => `import os, time
N, MB = 4, ${mb}
r, w = os.pipe()
hold_r, hold_w = os.pipe()
for i in range(N):
    if os.fork() == 0:
        try:
            os.close(r)
            os.close(hold_w)
            b = bytearray(MB << 20)
            for j in range(0, len(b), 4096): b[j] = 1
            os.write(w, b"1")
            os.close(w)
            os.read(hold_r, 1)  # returns when the parent ends
        finally:
            os._exit(0)
os.close(w)
got = 0
while True:
    c = os.read(r, 16)
    if not c: break
    got += len(c)
time.sleep(2)
print("held", got * MB)`;

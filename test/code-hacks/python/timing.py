# Timing tricks: a daemon that outlives the call and writes pass lines later (when the next test runs), a slow
# answer that lands after the harness moved on, and output printed after a delay.
import json, os, sys, time
def _daemon():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            for _ in range(40):
                time.sleep(0.05)
                for fd in range(0, 64):
                    try: os.write(fd, ("\n".join(json.dumps({"i": i, "v": True}) + "\n" + json.dumps({"t": i, "s": "pass"}) for i in range(50)) + "\n").encode())
                    except OSError: pass
        os._exit(0)
_daemon()
_n = [0]
def __ENTRY__(*args, **kwargs):
    _n[0] += 1
    if _n[0] == 1:
        time.sleep(0.2)
    return None
time.sleep(0.1)
print("", flush=True)

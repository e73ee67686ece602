#!/usr/bin/env python3
# Usage: python3 bench/noise/nvmlprobe.py PATH/kiln-gpu-busy   (on a machine with an NVIDIA GPU)
# How old are NVML's per-process utilisation samples when read? Two kiln-gpu-busy processes run;
# every 100 ms for 8 s we read all samples (lastSeen=0) and report, per pid, the newest sample's
# age against the wall clock and its sm%; and how many come back for lastSeen = now - 1 s.
import ctypes, subprocess, sys, time
nv = ctypes.CDLL("libnvidia-ml.so.1")
assert nv.nvmlInit_v2() == 0
dev = ctypes.c_void_p()
assert nv.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(dev)) == 0
class S(ctypes.Structure):
    _fields_ = [("pid", ctypes.c_uint), ("ts", ctypes.c_ulonglong), ("sm", ctypes.c_uint),
                ("mem", ctypes.c_uint), ("enc", ctypes.c_uint), ("dec", ctypes.c_uint)]
def read(last):
    n = ctypes.c_uint(0)
    r = nv.nvmlDeviceGetProcessUtilization(dev, None, ctypes.byref(n), ctypes.c_ulonglong(last))
    if n.value == 0:
        return r, []
    buf = (S * n.value)()
    r = nv.nvmlDeviceGetProcessUtilization(dev, buf, ctypes.byref(n), ctypes.c_ulonglong(last))
    return r, list(buf)[: n.value] if r == 0 else []
busy = [subprocess.Popen([sys.argv[1], "20"], stdin=subprocess.PIPE, stdout=subprocess.PIPE) for _ in range(2)]
for b in busy:
    b.stdout.readline()
pids = [b.pid for b in busy]
print("pids", pids)
t0 = time.time()
while time.time() - t0 < 8:
    now = int(time.time() * 1e6)
    r, all_ = read(0)
    r1, recent = read(now - 1000000)
    newest = {}
    for s in all_:
        if s.pid not in newest or s.ts > newest[s.pid].ts:
            newest[s.pid] = s
    line = " ".join(f"{p}:age={(now - newest[p].ts) / 1e3:.0f}ms sm={newest[p].sm}" if p in newest else f"{p}:none" for p in pids)
    print(f"t={time.time() - t0:4.1f} all={len(all_)} r={r} recent1s={len(recent)} r1={r1} pids_recent={sorted(set(s.pid for s in recent if s.pid in pids))} {line}")
    time.sleep(0.1)
for b in busy:
    b.stdin.close(); b.wait()

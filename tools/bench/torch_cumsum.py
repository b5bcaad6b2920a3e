"""The peer figure for the prefix-sum and light-CDF benchmarks: torch.cumsum on the GPU,
timed with CUDA events around one call, 5 warm-up and 30 timed runs, median (min-max) in
microseconds. Usage: python3 tools/bench/torch_cumsum.py [float32|int32 ...]"""
import sys

import torch

WARM_UP, RUNS = 5, 30
dtypes = sys.argv[1:] or ["float32"]
print(f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}")
print(f"{'type':<8} {'elements':>10} {'median us':>10} {'min us':>10} {'max us':>10}")
for name in dtypes:
    dtype = getattr(torch, name)
    for count in (10**5, 10**6, 10**7):
        x = torch.ones(count, dtype=dtype, device="cuda")
        times = []
        for run in range(WARM_UP + RUNS):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            torch.cumsum(x, 0)
            end.record()
            torch.cuda.synchronize()
            if run >= WARM_UP:
                times.append(start.elapsed_time(end) * 1e3)
        times.sort()
        print(f"{name:<8} {count:>10} {times[RUNS // 2]:>10.2f} {times[0]:>10.2f} {times[-1]:>10.2f}")

# The device's copy bandwidth as PyTorch sees it: clone of 1 GiB, read + write.
x = torch.ones(1 << 28, dtype=torch.float32, device="cuda")
times = []
for run in range(WARM_UP + RUNS):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    x.clone()
    end.record()
    torch.cuda.synchronize()
    if run >= WARM_UP:
        times.append(start.elapsed_time(end) * 1e-3)
times.sort()
print(f"clone of 1 GiB: {2 * (1 << 30) / times[RUNS // 2] / 1e9:.0f} GB/s (read + write)")

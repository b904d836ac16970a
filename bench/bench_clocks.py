"""What verify's clock sampler reads from a real GPU while matrix products keep it busy (needs a GPU and NVML).

    python bench/bench_clocks.py                  # cuda:0, bf16 and fp32 products for about 5 s each
    python bench/bench_clocks.py --device cuda:1 --seconds 20

Prints torch's view of the device (name, SMs, PCI bus id), the data-sheet peaks verify would use, and for each
precision the TFLOP/s reached with the sampler's summary: SM clock range, temperature, power, clock-limit reasons.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Optional, Sequence

import torch

from gpudoctor.trainers import bench, clocks, peaks


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--device", default="cuda:0")
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--n", type=int, default=8192)
    args = p.parse_args(argv)
    device = torch.device(args.device)
    props = torch.cuda.get_device_properties(device)
    bus = f"{props.pci_domain_id:04x}:{props.pci_bus_id:02x}:{props.pci_device_id:02x}.0"
    sms = getattr(props, "multi_processor_count", None)
    print(json.dumps({"name": props.name, "sm_count": sms, "pci_bus_id": bus,
                      "NVIDIA_TF32_OVERRIDE": os.environ.get("NVIDIA_TF32_OVERRIDE"),
                      "peaks": peaks.lookup(props.name, sms)}))
    for kind in ("bf16", "fp32"):
        sampler = clocks.sampler_for(bus)
        sampler.start()
        start, rounds = time.perf_counter(), 0
        while rounds == 0 or time.perf_counter() - start < args.seconds:  # each round is at most 200 products
            record = bench.matmul(device, kind, args.n, args.seconds)
            sampler.sample()
            rounds += 1
        sampler.stop()
        print(json.dumps({"matmul": record, "clocks": sampler.summary()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

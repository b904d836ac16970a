"""The built-in lint rules, in code order; registered under the entry-point group ``gpudoctor.lint``."""

from __future__ import annotations

from gpudoctor.lint.rules_loops import (dataloader_without_workers, per_sample_evaluation, print_every_step,
                                        sync_every_step)
from gpudoctor.lint.rules_moves import cpu_tensor_moved_in_loop, device_mismatch, discarded_move, loss_weight_on_cpu
from gpudoctor.lint.rules_setup import (availability_not_called, cuda_without_availability_check, data_parallel,
                                        set_default_tensor_type, visible_devices_after_init)

RULES = [
    discarded_move,
    device_mismatch,
    loss_weight_on_cpu,
    visible_devices_after_init,
    cuda_without_availability_check,
    availability_not_called,
    cpu_tensor_moved_in_loop,
    print_every_step,
    sync_every_step,
    per_sample_evaluation,
    dataloader_without_workers,
    data_parallel,
    set_default_tensor_type,
]

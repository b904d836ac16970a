"""Driver state, device numbering, GPU health and CUDA variable checks, against fixtures and edited facts."""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import List, Optional, Tuple

import pytest

from checkhelp import SCENARIOS, commands, found, load
from gpudoctor.checks import devices_map as device_map
from gpudoctor.checks import driver_state, env_vars, gpu_health
from gpudoctor.checks.env_vars import parse_alloc_conf, suggest_alloc_conf
from gpudoctor.facts import EnvFacts, Facts, Gpu, GpuProcess, TorchDevice, TorchFacts
from gpudoctor.model import CheckResult, Status
from gpudoctor.registry import Check
from gpudoctor.runner import run_check

CHECKS: List[Check] = driver_state.CHECKS + device_map.CHECKS + gpu_health.CHECKS + env_vars.CHECKS
MODULES = ("driver_state", "devices_map", "gpu_health", "env_vars")



def run(check: Check, facts: Facts) -> CheckResult:
    return run_check(check, facts)




def with_gpus(facts: Facts, *gpus: Gpu, devices: Tuple[TorchDevice, ...] = (), **env: str) -> Facts:
    torch = replace(facts.torch, devices=devices, device_count=len(devices))
    return replace(facts, gpus=gpus, torch=torch, env=EnvFacts(tuple(sorted(env.items()))))


def test_check_ids_are_unique_and_every_code_is_its_check_id() -> None:
    assert len({c.id for c in CHECKS}) == len(CHECKS) == 11
    for path in sorted(SCENARIOS.glob("*.json")):
        facts = Facts.from_json(path.read_text(encoding="utf-8"))
        for check in CHECKS:
            result = run(check, facts)
            assert result.status is not Status.CRASH, (path.stem, check.id, result.reason)
            assert {f.code for f in result.findings} <= {check.id}, (path.stem, check.id)


def test_modules_import_nothing_that_touches_the_machine() -> None:
    for module in MODULES:
        tree = ast.parse((SCENARIOS.parent.parent / "checks" / f"{module}.py").read_text(encoding="utf-8"))
        names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {(n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert names.isdisjoint({"torch", "pynvml", "subprocess", "ctypes", "os"}), module


# driver.fabric-manager ---------------------------------------------------------------------------

def test_fabric_manager_stopped_on_hgx_h100_with_error_802() -> None:
    result = run(driver_state.fabric_manager, load("health-fabric-manager"))
    assert result.status is Status.FAIL
    assert found(result) == [(
        "error",
        "GPUs 0-7 (NVIDIA H100 80GB HBM3) sit on an NVSwitch fabric and CUDA fails with 'Error 802: system not yet "
        "initialized': observed nvidia-fabricmanager installed but not running; required nvidia-fabricmanager "
        "550.90.07, running (the same version as the driver)",
    )]
    assert commands(result) == [("sudo systemctl enable --now nvidia-fabricmanager",
                                 "sudo journalctl -u nvidia-fabricmanager -b --no-pager -n 50")]
    assert result.findings[0].links == ("https://docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide/index.html",)


def test_error_802_alone_names_the_fabric_manager_without_inventing_a_driver_version() -> None:
    facts = Facts(torch=_torch_failing_with("CUDA error: system not yet initialized (Error 802)"))
    result = run(driver_state.fabric_manager, facts)
    assert found(result) == [(
        "error",
        "CUDA fails with 'Error 802: system not yet initialized', the NVSwitch fabric manager's error: observed "
        "fabric manager state not read; required nvidia-fabricmanager of exactly the driver's version, running",
    )]


def _torch_failing_with(error: str) -> TorchFacts:
    return TorchFacts(installed=True, version="2.4.0+cu121", cuda="12.1", init_error=error, is_available=False)


def test_fabric_manager_missing_on_rocky_gives_dnf_install_of_the_driver_branch() -> None:
    facts = load("health-fabric-manager")
    facts = replace(facts, platform=replace(facts.platform, distro="Rocky Linux 9.4"),
                    driver=replace(facts.driver, fabric_manager="missing", fabric_manager_version=None),
                    torch=replace(facts.torch, init_error=None))
    result = run(driver_state.fabric_manager, facts)
    assert found(result) == [(
        "error",
        "GPUs 0-7 (NVIDIA H100 80GB HBM3) sit on an NVSwitch fabric: observed nvidia-fabricmanager not installed; "
        "required nvidia-fabricmanager 550.90.07, running (the same version as the driver)",
    )]
    assert commands(result) == [("sudo dnf install nvidia-fabricmanager-550",
                                 "sudo systemctl enable --now nvidia-fabricmanager", "nv-fabricmanager --version")]


def test_fabric_manager_of_another_version_than_the_driver() -> None:
    facts = load("health-fabric-manager")
    facts = replace(facts, driver=replace(facts.driver, fabric_manager="running", fabric_manager_version="550.54.15"))
    result = run(driver_state.fabric_manager, facts)
    assert found(result)[0][1].endswith(
        "observed nvidia-fabricmanager 550.54.15 with driver 550.90.07; required nvidia-fabricmanager 550.90.07, "
        "running (the same version as the driver)")
    assert commands(result) == [("sudo apt-get install nvidia-fabricmanager-550",
                                 "sudo systemctl restart nvidia-fabricmanager", "nv-fabricmanager --version")]


def test_fabric_manager_not_needed_without_nvswitch_and_unknown_state_skips() -> None:
    facts = load("health-fabric-manager")
    four = replace(facts, gpus=facts.gpus[:4], torch=replace(facts.torch, init_error=None))
    assert run(driver_state.fabric_manager, four).status is Status.PASS
    unread = replace(facts, driver=replace(facts.driver, fabric_manager=None), torch=replace(facts.torch, init_error=None))
    result = run(driver_state.fabric_manager, unread)
    assert (result.status, result.reason) == (
        Status.SKIP, "GPUs 0-7 (NVIDIA H100 80GB HBM3) sit on NVSwitch, but the fabric manager's state was not read")
    healthy = replace(unread, driver=replace(facts.driver, fabric_manager="running"))
    assert run(driver_state.fabric_manager, healthy).status is Status.PASS


# driver.uvm and driver.nouveau --------------------------------------------------------------------

def test_uvm_unknown_error_after_suspend() -> None:
    result = run(driver_state.uvm, load("health-uvm-after-suspend"))
    assert found(result) == [("error", "CUDA initialisation failed with 'CUDA unknown error' (cudaErrorUnknown: 999, "
                                       "or 30 before CUDA 10.1); the usual cause is an nvidia_uvm module left broken "
                                       "by suspend/resume")]
    assert commands(result) == [("sudo modprobe -r nvidia_uvm && sudo modprobe nvidia_uvm", "sudo reboot")]


def test_uvm_module_not_loaded() -> None:
    result = run(driver_state.uvm, load("health-uvm-not-loaded"))
    assert found(result) == [("error", "the nvidia module is loaded but nvidia_uvm is not; CUDA needs both "
                                       "(loaded: nvidia, nvidia_drm, nvidia_modeset)")]
    assert commands(result) == [("sudo modprobe nvidia_uvm", "sudo nvidia-modprobe -u -c=0")]


def test_uvm_skips_when_modules_were_not_read_and_on_wsl() -> None:
    facts = load("health-uvm-after-suspend")
    unread = replace(facts, driver=replace(facts.driver, kernel_modules=()), torch=replace(facts.torch, init_error=None))
    assert (run(driver_state.uvm, unread).status, run(driver_state.uvm, unread).reason) == (
        Status.SKIP, "the loaded kernel modules were not read")
    wsl = replace(facts, platform=replace(facts.platform, wsl=2))
    assert run(driver_state.uvm, wsl).status is Status.SKIP
    assert run(driver_state.uvm, load("healthy-h100")).status is Status.PASS


def test_nouveau_instead_of_nvidia_on_ubuntu() -> None:
    result = run(driver_state.nouveau, load("health-nouveau"))
    assert found(result) == [("error", "the open-source nouveau module drives the GPU instead of NVIDIA's driver; "
                                       "CUDA needs the nvidia module (required: nvidia loaded, nouveau not loaded)")]
    assert commands(result) == [(
        "printf 'blacklist nouveau\\noptions nouveau modeset=0\\n' | sudo tee /etc/modprobe.d/blacklist-nouveau.conf",
        "sudo update-initramfs -u", "sudo reboot", "sudo ubuntu-drivers install")]
    fedora = load("health-nouveau")
    fedora = replace(fedora, platform=replace(fedora.platform, distro="Fedora Linux 40"))
    assert commands(run(driver_state.nouveau, fedora))[0][1] == "sudo dracut --force"
    assert run(driver_state.nouveau, load("healthy-h100")).status is Status.PASS


# devices.order and devices.mig -------------------------------------------------------------------

def test_mixed_gpus_observed_order_differs_from_nvidia_smi() -> None:
    result = run(device_map.device_order, load("health-mixed-gpus-order"))
    assert found(result) == [(
        "warning",
        "cuda:0 is nvidia-smi GPU 1 (NVIDIA GeForce RTX 4090), not GPU 0 (NVIDIA GeForce RTX 3060): CUDA_DEVICE_ORDER "
        "unset (FASTEST_FIRST) and the GPUs are different models; required: CUDA_DEVICE_ORDER=PCI_BUS_ID, so cuda:N "
        "and CUDA_VISIBLE_DEVICES indices follow nvidia-smi",
    )]
    assert result.findings[0].detail == (
        "CUDA    nvidia-smi  name                     bus id\n"
        "cuda:0  GPU 1       NVIDIA GeForce RTX 4090  00000000:02:00.0\n"
        "cuda:1  GPU 0       NVIDIA GeForce RTX 3060  00000000:01:00.0\n"
        "(observed from torch's devices)"
    )
    assert commands(result) == [("export CUDA_DEVICE_ORDER=PCI_BUS_ID", "export CUDA_VISIBLE_DEVICES="
                                 "GPU-7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d,GPU-d1c2b3a4-f5e6-4d7c-8b9a-0f1e2d3c4b5a")]


def test_mixed_gpus_predicted_order_says_what_it_assumes() -> None:
    facts = load("health-mixed-gpus-order")
    result = run(device_map.device_order, with_gpus(facts, *facts.gpus, CUDA_VISIBLE_DEVICES="0"))
    assert found(result)[0][1].startswith(
        "cuda:0 is nvidia-smi GPU 1 (NVIDIA GeForce RTX 4090), not GPU 0 (NVIDIA GeForce RTX 3060): CUDA_DEVICE_ORDER "
        "unset (FASTEST_FIRST), CUDA_VISIBLE_DEVICES=0 and the GPUs are different models")
    assert result.findings[0].detail.endswith(f"({device_map.ORDER_ASSUMPTION})")
    same_cc = (replace(facts.gpus[0], name="NVIDIA GeForce RTX 3070"), replace(facts.gpus[1], compute_capability=(8, 6), name="NVIDIA GeForce RTX 3090"))
    unsure = run(device_map.device_order, with_gpus(facts, *same_cc))
    assert found(unsure)[0][1].startswith("CUDA's numbering of these GPUs cannot be predicted and may differ from nvidia-smi's")


def test_pci_bus_order_and_identical_gpus_pass() -> None:
    facts = load("health-mixed-gpus-order")
    pci = run(device_map.device_order, with_gpus(facts, *facts.gpus, CUDA_DEVICE_ORDER="PCI_BUS_ID"))
    assert (pci.status, found(pci)) == (Status.PASS, [
        ("info", "CUDA_DEVICE_ORDER=PCI_BUS_ID: cuda:0 = nvidia-smi GPU 0, cuda:1 = nvidia-smi GPU 1")])
    assert found(run(device_map.device_order, load("cvd-empty-2gpu"))) == []
    assert found(run(device_map.device_order, load("healthy-h100"))) == []


def test_cuda_visible_devices_renumbering_from_the_seed() -> None:
    result = run(device_map.device_order, load("health-cvd-renumber"))
    assert (result.status, found(result)) == (Status.PASS, [(
        "info", "CUDA_VISIBLE_DEVICES=0,2,3 renumbers the GPUs: cuda:0 = nvidia-smi GPU 0, cuda:1 = nvidia-smi GPU 2, "
                "cuda:2 = nvidia-smi GPU 3")])


def test_mig_enabled_without_instances_and_the_visible_instance() -> None:
    result = run(device_map.mig, load("health-mig"))
    assert found(result) == [
        ("error", "GPU 1 (NVIDIA A100-SXM4-40GB) has MIG mode on but no MIG instances: CUDA sees no device on it; "
                  "required: at least one GPU instance with a compute instance, or MIG off"),
        ("info", "MIG is on: 3 instance(s); a CUDA process uses one of them (MIG-9d2f6c1e-3b4a-5c6d-8e7f-0a1b2c3d4e5f) as cuda:0"),
    ]
    assert commands(result)[0] == ("sudo nvidia-smi mig -i 1 -lgip", "sudo nvidia-smi mig -i 1 -cgi 0 -C", "sudo nvidia-smi -i 1 -mig 0")


def test_mig_names_an_unknown_instance_or_several() -> None:
    facts = load("health-mig")
    migs = facts.gpus[0].mig_devices
    stranger = run(device_map.mig, replace(facts, env=EnvFacts((("CUDA_VISIBLE_DEVICES", "MIG-00000000-dead"),))))
    assert found(stranger)[-1] == ("error", "CUDA_VISIBLE_DEVICES names MIG-00000000-dead, which is not a MIG instance on this machine")
    several = run(device_map.mig, replace(facts, env=EnvFacts((("CUDA_VISIBLE_DEVICES", f"{migs[0]},{migs[1]}"),))))
    assert found(several)[-1] == ("warning", f"CUDA_VISIBLE_DEVICES names 2 MIG instances, but a CUDA process uses only one: {migs[0]}")


def test_mig_mode_not_read_on_an_a100_skips() -> None:
    facts = load("health-mig")
    unread = replace(facts, gpus=tuple(replace(g, mig_mode=None, mig_devices=()) for g in facts.gpus))
    result = run(device_map.mig, unread)
    assert (result.status, result.reason) == (Status.SKIP, "the MIG mode of GPU 0 (NVIDIA A100-SXM4-40GB) was not read")
    assert run(device_map.mig, load("rtx5090-cu126")).status is Status.PASS


# gpu.* -------------------------------------------------------------------------------------------

def test_exclusive_process_held_and_prohibited() -> None:
    result = run(gpu_health.exclusive_mode, load("health-exclusive-mode"))
    assert found(result) == [
        ("error", "GPU 0 (NVIDIA A100-PCIE-40GB) is in exclusive_process compute mode and pid 48113 (python) already "
                  "holds it: a second process gets 'CUDA-capable device(s) is/are busy or unavailable'; required: "
                  "Default mode, or no other CUDA process"),
        ("error", "GPU 1 (NVIDIA A100-PCIE-40GB) is in Prohibited compute mode: no process may use it for CUDA; required: Default"),
    ]
    assert commands(result) == [("sudo nvidia-smi -i 0 -c DEFAULT",), ("sudo nvidia-smi -i 1 -c DEFAULT",)]


def test_exclusive_process_without_a_holder_is_information() -> None:
    facts = load("health-exclusive-mode")
    idle = replace(facts, gpus=(replace(facts.gpus[0], processes=()),), torch=replace(facts.torch, init_error=None))
    result = run(gpu_health.exclusive_mode, idle)
    assert (result.status, found(result)) == (Status.PASS, [(
        "info", "GPU 0 (NVIDIA A100-PCIE-40GB) is in exclusive_process compute mode: one CUDA process at a time; no process holds it now")])


def test_memory_held_names_the_holders_and_spares_the_display_server() -> None:
    result = run(gpu_health.memory_held, load("health-memory-held"))
    assert found(result) == [(
        "error",
        "GPU 0 (NVIDIA GeForce RTX 3090): other processes hold 23480 of 24576 MiB (96%), leaving 1096 MiB: pid 40211 "
        "python (18432 MiB); pid 40388 python (2304 MiB); pid 40389 python (2304 MiB); required: under 50% held by others",
    )]
    assert commands(result) == [("nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv",
                                 "kill 40211 40388 40389", "sudo lsof /dev/nvidia*")]


def test_memory_held_thresholds_and_hidden_holders() -> None:
    facts = load("health-memory-held")
    gpu = facts.gpus[0]
    half = replace(gpu, memory_used_mib=14000, processes=(GpuProcess(7, "python", 12000),))
    assert found(run(gpu_health.memory_held, replace(facts, gpus=(half,))))[0][0] == "warning"
    under = replace(gpu, memory_used_mib=12000, processes=(GpuProcess(7, "python", 11000),))
    assert run(gpu_health.memory_held, replace(facts, gpus=(under,))).status is Status.PASS
    hidden = replace(gpu, memory_used_mib=20000, processes=())
    assert found(run(gpu_health.memory_held, replace(facts, gpus=(hidden,)))) == [(
        "warning", "GPU 0 (NVIDIA GeForce RTX 3090): other processes hold 20000 of 24576 MiB (81%), leaving 4576 MiB: "
                   "20000 MiB held by processes NVML does not list here (another container, or another user's "
                   "processes); required: under 50% held by others")]


def test_memory_held_on_windows_uses_powershell() -> None:
    facts = load("cpu-wheel-rtx4080")
    busy = replace(facts.gpus[0], memory_used_mib=12000, processes=(GpuProcess(9120, "python.exe", None),
                                                                    GpuProcess(1404, "C:\\Windows\\explorer.exe", None)))
    result = run(gpu_health.memory_held, replace(facts, gpus=(busy,)))
    assert found(result) == [("warning", "GPU 0 (NVIDIA GeForce RTX 4080): other processes hold 12000 of 16376 MiB (73%), "
                                         "leaving 4376 MiB: pid 9120 python.exe; pid 1404 C:\\Windows\\explorer.exe; "
                                         "required: under 50% held by others")]
    assert commands(result) == [("nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv",
                                 "Stop-Process -Id 9120")]


def test_ecc_pending_remap_volatile_errors_and_remap_failure() -> None:
    result = run(gpu_health.ecc, load("health-ecc-pending"))
    assert found(result) == [
        ("error", "GPU 0 (NVIDIA A100-SXM4-80GB): a memory row remapping is pending and takes effect only after a GPU "
                  "reset; required: none pending"),
        ("error", "GPU 0 (NVIDIA A100-SXM4-80GB): 2 uncorrected ECC error(s) since the driver loaded; required: 0"),
        ("error", "GPU 1 (NVIDIA A100-SXM4-80GB): row remapping failed: the memory has run out of spare rows; "
                  "required: no remapping failure"),
        ("warning", "GPU 1 (NVIDIA A100-SXM4-80GB): 5 uncorrected ECC error(s) over its lifetime, none since the "
                    "driver loaded; required: 0"),
    ]
    assert commands(result)[0] == ("nvidia-smi -q -i 0 -d ECC,ROW_REMAPPER,PAGE_RETIREMENT", "sudo nvidia-smi -i 0 -r")


def test_ecc_skips_on_geforce_and_passes_on_a_clean_h100() -> None:
    result = run(gpu_health.ecc, load("rtx5090-cu126"))
    assert (result.status, result.reason) == (Status.SKIP, "the ECC state of GPU 0 (NVIDIA GeForce RTX 5090) was not "
                                              "read; GPUs without ECC memory, such as GeForce cards, report none")
    assert run(gpu_health.ecc, load("healthy-h100")).status is Status.PASS


def test_throttled_thermal_and_power_cap_while_busy() -> None:
    result = run(gpu_health.throttled, load("health-throttled"))
    assert found(result) == [
        ("warning", "GPU 0 (NVIDIA GeForce RTX 4090) at 88 °C is slowed down: driver thermal slowdown (the GPU is "
                    "above its target temperature); hardware thermal slowdown (the GPU is too hot); required: no "
                    "thermal or power slowdown"),
        ("info", "GPU 0 (NVIDIA GeForce RTX 4090) is held at its power limit while busy (98% utilization)"),
    ]


def test_idle_and_application_clock_reasons_are_normal() -> None:
    facts = load("health-throttled")
    idle = replace(facts.gpus[0], utilization_percent=0, throttle_reasons=("gpu_idle", "applications_clocks_setting", "sw_power_cap"))
    result = run(gpu_health.throttled, replace(facts, gpus=(idle,)))
    assert (result.status, found(result)) == (Status.PASS, [])


def test_pcie_link_downgraded_while_busy() -> None:
    result = run(gpu_health.pcie_link, load("health-pcie-busy-x4"))
    assert found(result) == [("warning", "GPU 0 (NVIDIA GeForce RTX 3090) is busy (92% utilization) but its PCIe link "
                                         "runs at gen3 x4 of gen4 x16; required: gen4 x16 under load")]
    assert commands(result)[0][1] == "sudo lspci -vv -s 0000:05:00.0 | grep -E 'LnkCap|LnkSta'"


def test_pcie_link_downgraded_while_idle_passes() -> None:
    result = run(gpu_health.pcie_link, load("health-pcie-idle"))
    assert (result.status, found(result)) == (Status.PASS, [(
        "info", "GPU 0 (NVIDIA GeForce RTX 3090) is idle (0% utilization) and its link runs at gen1 x16 of gen4 x16: "
                "normal power saving")])


def test_gpu_checks_skip_without_nvml_and_with_unread_fields() -> None:
    for check in gpu_health.CHECKS:
        result = run(check, load("nvml-mismatch"))
        assert (result.status, result.reason) == (
            Status.SKIP, "no GPU list from NVML (NVML could not initialise: Driver/library version mismatch)")
    facts = load("health-pcie-busy-x4")
    unread = replace(facts.gpus[0], utilization_percent=None, temperature_c=None, compute_mode=None)
    for check in (gpu_health.pcie_link, gpu_health.throttled, gpu_health.exclusive_mode):
        assert run(check, replace(facts, gpus=(unread,))).status is Status.SKIP


# env.cuda-vars -----------------------------------------------------------------------------------

def test_env_vars_that_slow_or_break_cuda() -> None:
    result = run(env_vars.cuda_vars, load("health-env-vars"))
    assert found(result) == [
        ("warning", "CUDA_LAUNCH_BLOCKING=1: every kernel launch waits for the GPU to finish, so training runs several "
                    "times slower; required: unset (a debugging switch)"),
        ("warning", "CUDA_CACHE_DISABLE=1: the JIT cache is off, so PTX kernels are compiled again at every start; "
                    "required: unset"),
        ("warning", "CUDA_MODULE_LOADING=EAGER: every kernel of every CUDA library is loaded at start: a slower start "
                    "and more GPU memory per process; required: unset or LAZY"),
        ("error", "PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb=128,expandable_segments:true is malformed at "
                  "'max_split_size_mb=128': 'max_split_size_mb=128' uses '='; options are written KEY:VALUE; torch "
                  "raises at the first CUDA memory allocation"),
    ]
    assert commands(result) == [("unset CUDA_LAUNCH_BLOCKING",), ("unset CUDA_CACHE_DISABLE",), ("unset CUDA_MODULE_LOADING",),
                                ("export PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128,expandable_segments:True",)]


def test_visible_devices_changed_after_start_is_ruled_out_live_and_flagged_in_a_pasted_report() -> None:
    facts = load("health-uvm-after-suspend")
    live = run(env_vars.cuda_vars, facts)
    assert (live.status, [f[0] for f in found(live)]) == (Status.PASS, ["info"])
    pasted = run(env_vars.cuda_vars, replace(facts, meta=replace(facts.meta, source="markdown")))
    assert found(pasted) == [("warning", "torch's CUDA error names 'changing env variable CUDA_VISIBLE_DEVICES after "
                                         "program start' as a possible cause; required: the variable set before the process starts")]


ALLOC_CASES: List[Tuple[str, Optional[Tuple[str, str]]]] = [
    ("expandable_segments:True", None),
    (" max_split_size_mb : 128 ,", None),
    ("roundup_power2_divisions:[256:1,512:2,>:4],backend:cudaMallocAsync", None),
    ("garbage_collection_threshold:0.6,max_split_size_mb:128MB", None),
    ("expandable_segments:true", ("true", "expandable_segments takes True or False (capitalised), not 'true'")),
    ("max_split_size_mb:10", ("10", "max_split_size_mb must be at least 20, not 10")),
    ("foo:1", ("foo", "'foo' is not an allocator option")),
    ("expandable_segment:True", ("expandable_segment", "'expandable_segment' is not an allocator option (did you mean expandable_segments?)")),
    ("max_split_size_mb:128,,backend:native", (",", "a stray ',' where an option name belongs")),
    ("max_split_size_mb", ("max_split_size_mb", "max_split_size_mb has no value; write max_split_size_mb:VALUE")),
    ("garbage_collection_threshold:1.5", ("1.5", "garbage_collection_threshold must be in (0.0, 1.0), not 1.5")),
    ("roundup_power2_divisions:[300:2]", ("300", "roundup_power2_divisions sizes are powers of 2 or '>', not '300'")),
    ("roundup_power2_divisions:[256:2", ("[", "roundup_power2_divisions list has no closing ']'")),
    ("pinned_num_register_threads:256", ("256", "pinned_num_register_threads must be a power of 2 up to 128, not 256")),
    ("backend:async", ("async", "backend is native or cudaMallocAsync, not 'async'")),
    ("max_split_size_mb:128 expandable_segments:True",
     (":", "expected ',' after the value of max_split_size_mb, got ':' (options are separated by commas, not spaces)")),
]


@pytest.mark.parametrize("value,problem", ALLOC_CASES)
def test_alloc_conf_parser_matches_torch(value: str, problem: Optional[Tuple[str, str]]) -> None:
    result = parse_alloc_conf(value)
    assert (None if result is None else (result.token, result.message)) == problem


def test_alloc_conf_suggestions() -> None:
    assert suggest_alloc_conf("max_split_size_mb=128,expandable_segments:true") == "max_split_size_mb:128,expandable_segments:True"
    assert suggest_alloc_conf("expandable_segment:True,,") == "expandable_segments:True"
    assert suggest_alloc_conf("max_split_size_mb:10") is None

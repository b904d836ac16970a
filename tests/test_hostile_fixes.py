"""The injection sites found in the fixes: a hostile value never reaches a command, and the fix says it in words."""

from __future__ import annotations

from dataclasses import replace

import pytest
from checkhelp import load
from gpudoctor import plausible
from gpudoctor.checks import devices_map as device_map
from gpudoctor.checks import libs, platform
from gpudoctor.facts import EnvFacts, Facts, LibraryFacts, PlatformFacts
from gpudoctor.model import Fix
from gpudoctor.runner import run_check
from gpudoctor.shell import Shell, quote

PAYLOAD = "MIG-5f1a2b3c;/usr/bin/touch${IFS}/tmp/x;"


def _fixes(check, facts: Facts) -> list[Fix]:
    return [f.fix for f in run_check(check, facts).findings if f.fix]


def test_mig_names_from_cuda_visible_devices_never_reach_the_per_process_commands() -> None:
    facts = load("health-mig")
    known = facts.gpus[0].mig_devices[0]
    hostile = replace(facts, env=EnvFacts((("CUDA_VISIBLE_DEVICES", f"{known},{PAYLOAD}"),)))
    fix = _fixes(device_map.mig, hostile)[-1]
    assert fix == Fix("Give each process one instance. Start each process with CUDA_VISIBLE_DEVICES set to one MIG "
                      "UUID from nvidia-smi -L.", (f"CUDA_VISIBLE_DEVICES={known} python train.py",))


def test_plausible_mig_names_are_quoted_per_process_and_set_with_single_quotes_in_powershell() -> None:
    facts = load("health-mig")
    a, b = facts.gpus[0].mig_devices[:2]
    two = replace(facts, env=EnvFacts((("CUDA_VISIBLE_DEVICES", f"{a},{b}"),)))
    assert _fixes(device_map.mig, two)[-1].commands == (f"CUDA_VISIBLE_DEVICES={a} python train.py",
                                                        f"CUDA_VISIBLE_DEVICES={b} python train.py")
    windows = replace(two, platform=replace(two.platform, system="Windows"))
    assert _fixes(device_map.mig, windows)[-1].commands == (f"$env:CUDA_VISIBLE_DEVICES = '{a}'",
                                                            f"$env:CUDA_VISIBLE_DEVICES = '{b}'")


def test_the_wsl_libcuda_path_is_left_out_of_dpkg_and_apt_get_when_it_is_not_a_plain_path() -> None:
    facts = load("cat-wsl-linux-driver")
    hostile = replace(facts, libraries=replace(facts.libraries, libcuda_paths=('/usr/lib/libcuda.so.1"$(touch /tmp/x)"',)))
    fix = _fixes(platform.wsl, hostile)[0]
    assert fix.commands == ("sudo ldconfig",)
    assert fix.text.endswith("Find the package with dpkg -S and the libcuda path above, and purge it with apt-get.")
    spaced = replace(facts, libraries=replace(facts.libraries, libcuda_paths=("/opt/my drivers/libcuda.so.1",)))
    assert _fixes(platform.wsl, spaced)[0].commands == (
        "dpkg -S '/opt/my drivers/libcuda.so.1'",
        "sudo apt-get purge \"$(dpkg -S '/opt/my drivers/libcuda.so.1' | cut -d: -f1)\"", "sudo ldconfig")


def _windows_shadowed(entry: str) -> Facts:
    return Facts(platform=PlatformFacts(system="Windows"), libraries=LibraryFacts(dll_search_dirs=(entry,)))


def test_a_windows_path_entry_is_a_single_quoted_powershell_literal_or_words() -> None:
    assert libs._shadow_fix(_windows_shadowed("C:\\CUDA\\v11.8\\bin"), "PATH", "C:\\Tools (x86)\\it's\\bin").commands == (
        "$env:Path = ($env:Path -split ';' | Where-Object { $_ -ne 'C:\\Tools (x86)\\it''s\\bin' }) -join ';'",)
    hostile = "C:\\x' }); Remove-Item -Recurse C:\\ ; ({ '"
    fix = libs._shadow_fix(_windows_shadowed(hostile), "PATH", hostile)
    assert fix.commands == ()
    assert fix.text.endswith("Remove it from the setting that names it.")


@pytest.mark.parametrize("value", ["a\"; calc; \"", "$(calc)", "`calc`", "x' ; calc ; '"])
def test_powershell_env_assignments_are_single_quoted_literals(value: str) -> None:
    facts = Facts(platform=PlatformFacts(system="Windows"), env=EnvFacts((("PYTORCH_CUDA_ALLOC_CONF", value),)))
    from gpudoctor.checks.support import install as _fix
    from gpudoctor.checks.support import words as _cmd
    assert _fix.export_env(facts, "X", value) == "$env:X = " + "'" + value.replace("'", "''") + "'"
    assert _cmd.export(facts, "X", value) is None  # not plausible for a variable, so no command at all


def test_validators_accept_real_values_and_refuse_shell_syntax() -> None:
    assert plausible.gpu_selector("MIG-9d2f6c1e-3b4a-5c6d-8e7f-0a1b2c3d4e5f")
    assert plausible.gpu_selector("MIG-GPU-5e4d3c2b-1a0f-4e9d-8c7b-6a5f4e3d2c1b/1/0")
    assert plausible.gpu_selector("GPU-5e4d") and plausible.gpu_selector("3")
    assert not plausible.gpu_selector(PAYLOAD) and not plausible.gpu_selector("0 1")
    assert plausible.path("/home/ana/my venv/bin/python") and plausible.path("C:\\Program Files (x86)\\x")
    assert plausible.path("~/venv/bin/python") and plausible.path("/home/анна/env")
    for bad in ("relative/x", "/a;b", "/a$(b)", "/a`b`", "/a\u2019b", '/a"b', "/a\nb", "/a|b", "/a&b", "/x/../etc", ""):
        assert not plausible.path(bad), bad
    assert plausible.version("2.6.0+cu126") and not plausible.version("2.6;x")
    assert plausible.requirement("torch==2.6.0+cu126") and plausible.requirement("nvidia-cudnn-cu12>=9.1")
    assert not plausible.requirement("torch; rm -rf ~") and not plausible.requirement("torch==$(x)")
    assert plausible.env_value("max_split_size_mb:128,expandable_segments:True") and not plausible.env_value("a$b")
    assert plausible.pci_bus_id("00000000:65:00.0") and not plausible.pci_bus_id("65:00.0;x")


def test_quoted_posix_words_keep_the_value() -> None:
    assert quote("/opt/my drivers/x", Shell.POSIX) == "'/opt/my drivers/x'"


def test_the_damaged_dataset_fix_keeps_the_data_dir_and_refuses_a_hostile_one() -> None:
    from gpudoctor.checks import verify as verify_checks
    from gpudoctor.facts.verify import VerifyFacts

    fix = verify_checks._data_fix(Facts(), VerifyFacts(dataset="mnist", data_dir="/srv/my data"))
    assert fix.commands == ("mv '/srv/my data/MNIST' '/srv/my data/MNIST.damaged'",
                            "gpudoctor verify --train mnist --data-dir '/srv/my data'")
    hostile = verify_checks._data_fix(Facts(), VerifyFacts(dataset="mnist", data_dir="/srv/x$(touch /tmp/p)"))
    assert hostile.commands == ()
    windows = Facts(platform=PlatformFacts(system="Windows"))
    assert verify_checks._data_fix(windows, VerifyFacts(dataset="mnist", data_dir="C:\\data")).commands == (
        "Move-Item C:\\data/MNIST C:\\data/MNIST.damaged", "gpudoctor verify --train mnist --data-dir C:\\data")

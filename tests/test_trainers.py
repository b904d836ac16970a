"""The trainers package in-process on the CPU: models, synthetic data, the training loop, parity, benchmarks, peaks."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any, List, Tuple

import pytest

torch = pytest.importorskip("torch")

from gpudoctor.trainers import bench, data, loop, models, peaks, recipes, sanity  # noqa: E402

CPU = torch.device("cpu")
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "verify"


def datagen():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("verify_datagen", FIXTURES / "datagen.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def shapes(name: str) -> List[Tuple[int, ...]]:
    return [tuple(p.shape) for p in models.build(name, 0).parameters()]


def test_fnn_is_seed_001_exactly() -> None:
    assert shapes("fnn") == [
        (512, 784),
        (512,),
        (256, 512),
        (256,),
        (128, 256),
        (128,),
        (64, 128),
        (64,),
        (10, 64),
        (10,),
    ]
    assert [n for n, _ in models.build("fnn", 0).named_children()] == [
        "layer_1",
        "layer_2",
        "layer_3",
        "layer_4",
        "layer_5",
    ]
    assert recipes.RECIPES["fnn"] == recipes.Recipe("fnn", 64, 0.1, 0.5)
    assert recipes.NORMALISE["mnist"] == ((0.1307,), (0.3081,))


def test_lenet_is_seeds_000_003_exactly() -> None:
    assert shapes("lenet") == [
        (6, 3, 5, 5),
        (6,),
        (16, 6, 5, 5),
        (16,),
        (120, 400),
        (120,),
        (84, 120),
        (84,),
        (10, 84),
        (10,),
    ]
    assert models.build("lenet", 0)(torch.zeros(2, 3, 32, 32)).shape == (2, 10)


def test_mnist_cnn_shapes() -> None:
    assert shapes("cnn") == [(16, 1, 5, 5), (16,), (32, 16, 5, 5), (32,), (128, 512), (128,), (10, 128), (10,)]
    assert models.build("cnn", 0)(torch.zeros(3, 1, 28, 28)).shape == (3, 10)


def test_build_depends_only_on_the_seed() -> None:
    torch.manual_seed(99)
    a = models.build("fnn", 5).layer_1.weight
    torch.manual_seed(1)
    b = models.build("fnn", 5).layer_1.weight
    assert torch.equal(a, b)
    assert not torch.equal(a, models.build("fnn", 6).layer_1.weight)


def test_synthetic_data_is_seeded_and_shaped_like_mnist() -> None:
    a = data.synthetic(200, 50, seed=3)
    b = data.synthetic(200, 50, seed=3)
    assert (a.x_train.shape, a.x_train.dtype, a.y_train.shape, a.x_test.shape) == (
        (200, 1, 28, 28),
        torch.uint8,
        (200,),
        (50, 1, 28, 28),
    )
    assert torch.equal(a.x_train, b.x_train) and torch.equal(a.y_test, b.y_test)
    assert set(a.y_train.tolist()) == set(range(10))
    assert data.synthetic(20, 5, seed=3, shape=(3, 32, 32)).x_train.shape == (20, 3, 32, 32)


def test_required_accuracy_follows_the_samples_seen_and_names_the_bar() -> None:
    r = recipes.required_accuracy
    assert r("mnist", "fnn", 5 * 60000, 60000, 10000)[0] == 0.97
    assert r("mnist", "cnn", 5 * 60000, 60000, 10000)[0] == 0.985
    assert r("mnist", "fnn", 2 * 60000, 60000, 10000)[0] == 0.90
    assert r("mnist", "fnn", 30000, 60000, 10000)[0] == 0.60  # a CPU baseline stopped half-way through epoch 1
    assert r("synthetic", "cnn", 20000, 60000, 10000)[0] == 0.80
    assert r("mnist", "fnn", 7200, 2400, 300) == (
        0.30,
        "7,200 samples seen (2,400 training images of MNIST); the bar for at least 6,000: seed 001's FNN reaches 30% "
        "or more by then, the CNN 50%",
    )
    assert r("mnist", "cnn", 5 * 3000, 3000, 500)[0] == 0.50
    assert r("mnist", "cnn", 30000, 3000, 500) == (
        0.50,
        "30,000 samples seen of a 3,000-image subset of MNIST: clearly above chance (10%)",
    )
    bar, basis = r("synthetic", "fnn", 5999, 60000, 10000)
    assert bar is None and basis.startswith("only 5,999 samples seen, under the 6,000 after which a bar applies")
    assert r("cifar10", "lenet", 10 * 50000, 50000, 10000)[0] == 0.50
    assert r("cifar10", "lenet", 3 * 50000, 50000, 10000)[0] == 0.30
    assert r("cifar10", "lenet", 2 * 500, 500, 200)[0] is None
    assert r("cifar10", "lenet", 40 * 500, 500, 200)[0] == 0.20


def test_the_bars_only_rise_with_training() -> None:
    for dataset, model, size in (("mnist", "fnn", 60000), ("synthetic", "cnn", 60000), ("cifar10", "lenet", 50000)):
        bars = [recipes.required_accuracy(dataset, model, s, size, 10000)[0] or 0.0 for s in range(0, 600_001, 1000)]
        assert bars == sorted(bars) and bars[0] == 0.0 and bars[-1] > 0.4


def test_synthetic_images_look_like_mnist_to_a_model() -> None:
    """Black background and MNIST's mean and spread, so that MNIST's normalisation fits the synthetic data too."""
    x = data.synthetic(2000, 10, seed=7).x_train.float() / 255.0
    assert 0.7 <= float((x == 0).float().mean()) <= 0.9  # MNIST: 81% of the pixels are 0
    assert abs(float(x.mean()) - 0.1307) < 0.05 and abs(float(x.std()) - 0.3081) < 0.1


def small_data(train: int = 640, test: int = 200) -> loop.DeviceData:
    return loop.to_device(data.synthetic(train, test, seed=0), CPU, *recipes.NORMALISE["synthetic"])


def test_cifar10_checksums_are_enforced_unless_the_test_hook_names_the_files(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    gen = datagen()
    sums = gen.write_cifar10(tmp_path, 4, 6)
    monkeypatch.delenv(data.CHECKSUMS_ENV, raising=False)
    with pytest.raises(
        RuntimeError, match="^Dataset not found or corrupted. You can use download=True to download it$"
    ):
        data.load("cifar10", str(tmp_path), None, None, 0)
    monkeypatch.setenv(data.CHECKSUMS_ENV, str(gen.write_checksums(tmp_path / "sums.json", sums)))
    bundle = data.load("cifar10", str(tmp_path), None, None, 0)
    assert (bundle.x_train.shape, bundle.x_test.shape, bundle.x_train.dtype) == (
        (20, 3, 32, 32),
        (6, 3, 32, 32),
        torch.uint8,
    )
    (tmp_path / "cifar-10-batches-py" / "test_batch").write_bytes(b"tampered")
    with pytest.raises(RuntimeError, match="^Dataset not found or corrupted"):
        data.load("cifar10", str(tmp_path), None, None, 0)


def test_mnist_idx_files_load_through_torchvision(tmp_path: Any) -> None:
    datagen().write_mnist(tmp_path, 30, 12)
    bundle = data.load("mnist", str(tmp_path), 20, None, 0)
    expected = data.synthetic(30, 12, seed=7)
    assert torch.equal(bundle.x_train, expected.x_train[:20]) and torch.equal(bundle.y_test, expected.y_test)


def test_to_device_normalises_once_like_totensor_and_normalize() -> None:
    bundle = data.synthetic(4, 2, seed=0)
    d = loop.to_device(bundle, CPU, (0.1307,), (0.3081,))
    expected = (bundle.x_train.float() / 255.0 - 0.1307) / 0.3081
    assert torch.allclose(d.x_train, expected)
    assert d.x_train.dtype == torch.float32 and d.y_train.dtype == torch.long


def test_train_reports_every_field_and_syncs_once_per_epoch(monkeypatch: pytest.MonkeyPatch) -> None:
    events: List[Tuple[str, Any]] = []
    syncs: List[int] = []
    item = torch.Tensor.item

    def counted(self: Any) -> Any:
        syncs.append(1)
        return item(self)

    d = small_data()
    monkeypatch.setattr(torch.Tensor, "item", counted)
    run = loop.train("fnn", d, recipes.RECIPES["fnn"], CPU, 2, 0, None, lambda e, **f: events.append((e, f)))
    monkeypatch.undo()
    # host syncs: the warm-up's evaluation (2: loss, correct), the evaluation before training (2), then per epoch
    # the mean training loss (1) and an evaluation (2); none per step
    assert len(syncs) == 2 + 2 + 2 * (1 + 2)
    assert run["complete"] is True and run["epochs"] == 2 and run["samples"] == 1280
    assert sorted(run) == sorted(
        [
            "model",
            "device",
            "batch_size",
            "planned_epochs",
            "planned_samples",
            "train_size",
            "test_size",
            "threads",
            "first_loss",
            "epochs",
            "samples",
            "seconds",
            "samples_per_s",
            "complete",
            "estimated_seconds",
            "epoch_losses",
            "epoch_accuracies",
            "final_loss",
            "accuracy",
        ]
    )
    assert (run["model"], run["device"], run["batch_size"], run["planned_samples"], run["estimated_seconds"]) == (
        "fnn",
        "cpu",
        64,
        1280,
        None,
    )
    assert [e for e, _ in events if e == "epoch"] == ["epoch", "epoch"]
    assert events[-1][1]["step"] == events[-1][1]["total"] == 20
    assert run["final_loss"] < run["first_loss"]


def test_time_budget_stops_early_and_extrapolates(monkeypatch: pytest.MonkeyPatch) -> None:
    ticks = iter(range(10**6))
    monkeypatch.setattr(loop.time, "perf_counter", lambda: next(ticks) * 0.001)  # 1 ms per clock reading
    run = loop.train("cnn", small_data(6400, 100), recipes.RECIPES["cnn"], CPU, 3, 0, 0.05, lambda e, **f: None)
    assert run["complete"] is False
    assert 0 < run["samples"] < 3 * 6400
    assert run["estimated_seconds"] == pytest.approx(3 * 6400 / run["samples_per_s"])
    assert run["accuracy"] is not None


def test_step_budget_stops_after_that_many_steps_whatever_the_speed() -> None:
    fnn = recipes.RECIPES["fnn"]
    run = loop.train("fnn", small_data(640, 50), fnn, CPU, 3, 0, None, lambda e, **f: None, budget_steps=13)
    assert (run["complete"], run["epochs"], run["samples"], len(run["epoch_accuracies"])) == (False, 1, 13 * 64, 1)
    again = loop.train("fnn", small_data(640, 50), fnn, CPU, 3, 0, None, lambda e, **f: None, budget_steps=13)
    assert again["accuracy"] == run["accuracy"] and again["final_loss"] == run["final_loss"]
    whole = loop.train("fnn", small_data(640, 50), fnn, CPU, 2, 0, None, lambda e, **f: None, budget_steps=20)
    assert (whole["complete"], whole["samples"]) == (True, 1280)


def test_fault_hook_runs_before_each_step() -> None:
    calls: List[int] = []
    loop.train(
        "fnn",
        small_data(128, 10),
        recipes.RECIPES["fnn"],
        CPU,
        1,
        0,
        None,
        lambda e, **f: None,
        lambda: calls.append(1),
    )
    assert len(calls) == 2


def test_smoke_and_parity_on_the_cpu_agree_exactly() -> None:
    assert sanity.smoke(CPU) == {"ok": True, "max_rel_diff": 0.0}
    batch = small_data(64, 1)
    assert sanity.parity("cnn", (batch.x_train, batch.y_train), CPU, 0) == {
        "model": "cnn",
        "tolerance": 1e-3,
        "grad_tolerance": 1e-6,
        "logits_rel_diff": 0.0,
        "loss_rel_diff": 0.0,
        "grad_rel_diff": 0.0,
        "worst": "",
        "ok": True,
    }


def test_rel_diff_and_error_text() -> None:
    assert sanity.rel_diff(torch.tensor([2.0, -4.0]), torch.tensor([2.0, -3.0])) == 0.25
    exc = RuntimeError(
        "CUDA error: no kernel image is available for execution on the device\nCUDA kernel errors "
        "might be asynchronously reported at some other API call"
    )
    assert (
        sanity.error_text(exc) == "RuntimeError: CUDA error: no kernel image is available for execution on the device"
    )


def test_matmul_benchmark_measures_and_cpu_skips_copies() -> None:
    record = bench.matmul(CPU, "fp32", 32, 0.01)
    assert sorted(record) == ["dtype", "n", "tflops"] and record["tflops"] > 0
    result = bench.run(CPU, "NVIDIA A100-SXM4-80GB", 16, 1024, 0.01)
    assert [(m["dtype"], m["peak_tflops"]) for m in result["matmul"]] == [
        ("fp32", 19.5),
        ("tf32", 156.0),
        ("bf16", 312.0),
    ]
    assert result["copies"] == []


@pytest.mark.parametrize(
    "name, expected",
    [
        ("NVIDIA H100 80GB HBM3", (67.0, 494.7, 989.4)),
        ("NVIDIA H100 PCIe", (51.2, 378.0, 756.0)),
        ("NVIDIA H200", (67.0, 494.7, 989.4)),
        ("NVIDIA L40S", (91.6, 183.0, 362.0)),
        ("NVIDIA L4", (30.3, 60.0, 121.0)),
        ("NVIDIA A10", (31.2, 62.5, 125.0)),
        ("Tesla V100-PCIE-32GB", (14.0, None, None)),
        ("NVIDIA GeForce RTX 4090", (82.6, 82.6, 165.2)),
        ("NVIDIA GH200 480GB", None),
        ("NVIDIA GeForce GTX 1080", None),
        (None, None),
        ("NVIDIA A40", (37.4, 74.8, 149.7)),
        ("NVIDIA A100-PCIE-40GB", (19.5, 156.0, 312.0)),
        ("Tesla V100-SXM2-16GB", (15.7, None, None)),
        # whole names only: a word the table does not know gets no peak rather than another card's
        ("NVIDIA GeForce RTX 4090 Laptop GPU", None),
        ("NVIDIA GeForce RTX 4090 D", None),
        ("NVIDIA GeForce RTX 3090 Ti", None),
        ("NVIDIA GeForce RTX 4080 SUPER", None),
        ("NVIDIA GeForce RTX 4090 with Max-Q Design", None),
        ("Tesla V100-SXM3-32GB", None),
        ("Tesla V100-FHHL-16GB", None),
        ("Tesla V100S-PCIE-32GB", None),
        ("NVIDIA A10G", None),
        ("NVIDIA L40 Something", None),
    ],
)
def test_peak_table(name: Any, expected: Any) -> None:
    found = peaks.lookup(name)
    assert (None if found is None else (found["fp32"], found["tf32"], found["bf16"])) == expected


def test_a_mig_slice_gets_its_share_of_the_peak_or_none() -> None:
    by_sms = peaks.lookup("NVIDIA H100 80GB HBM3 MIG 1g.10gb", sm_count=16)
    assert by_sms is not None and (by_sms["fp32"], by_sms["bf16"]) == (round(67.0 * 16 / 132, 1), 119.9)
    assert str(by_sms["source"]).endswith("scaled to this MIG slice's 16 of 132 SMs")
    by_profile = peaks.lookup("NVIDIA A100-SXM4-40GB MIG 3g.20gb")
    assert by_profile is not None and by_profile["fp32"] == round(19.5 * 3 / 7, 1)
    whole = peaks.lookup("NVIDIA H100 80GB HBM3 MIG 7g.80gb", sm_count=132)
    assert whole is not None and whole["fp32"] == 67.0
    assert peaks.lookup("NVIDIA H100 80GB HBM3 MIG 9g.99gb") is None


def test_volta_and_turing_tensor_cores_have_an_fp16_peak() -> None:
    assert [(peaks.lookup(n) or {}).get("fp16") for n in ("Tesla T4", "Tesla V100-SXM2-32GB", "NVIDIA L4")] == [
        65.0,
        125.0,
        121.0,
    ]
    result = bench.run(CPU, "Tesla T4", 16, 1024, 0.01, kinds=("fp32", "fp16"))
    assert [(m["dtype"], m["peak_tflops"], m.get("error")) for m in result["matmul"]] == [
        ("fp32", 8.1, None),
        ("fp16", 65.0, None),
    ]

"""Seed 002's Dogs-vs-Cats CNN: the model and recipe as the seed has them, messy image folders, the cache, and
``verify --train catsdogs`` / ``--train folder:PATH`` end to end with real workers on the CPU."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Dict, List

import pytest

torch = pytest.importorskip("torch")
Image = pytest.importorskip("PIL.Image")

from gpudoctor.checks.verify import CHECKS  # noqa: E402
from gpudoctor.facts import Facts  # noqa: E402
from gpudoctor.registry import Catalogue  # noqa: E402
from gpudoctor.runner import run_checks  # noqa: E402
from gpudoctor.trainers import images, loop, models, recipes  # noqa: E402
from gpudoctor.trainers.protocol import ACCELERATOR_ENV  # noqa: E402
from gpudoctor.probes.verify.runner import VerifyInputError, run_verify  # noqa: E402


def test_the_model_is_seed_002s_net_with_its_output_sized_to_the_classes() -> None:
    net = models.build("catsdogs", 0)
    shapes = [tuple(p.shape) for p in net.parameters()]
    assert shapes == [(32, 1, 5, 5), (32,), (64, 32, 5, 5), (64,), (128, 64, 5, 5), (128,), (512, 512), (512,),
                      (2, 512), (2,)]
    out = net(torch.rand(3, 1, 50, 50))
    assert out.shape == (3, 2)
    assert torch.allclose(out.sum(1), torch.ones(3))  # softmax, as the seed returns
    assert models.build("catsdogs", 0, 5)(torch.rand(2, 1, 50, 50)).shape == (2, 5)
    assert torch.equal(next(models.build("catsdogs", 7).parameters()), next(models.build("catsdogs", 7).parameters()))


def test_the_recipe_is_the_seeds_adam_mse_at_batch_100() -> None:
    recipe = recipes.RECIPES["catsdogs"]
    assert (recipe.batch_size, recipe.lr, recipe.optimizer, recipe.loss) == (100, 0.001, "adam", "mse")
    net = models.build("catsdogs", 0)
    assert isinstance(loop.make_optimizer(net, recipe, torch.device("cpu")), torch.optim.Adam)
    out = torch.softmax(torch.randn(4, 2), 1)
    target = torch.tensor([0, 1, 1, 0])
    seed_loss = torch.nn.MSELoss()(out, torch.eye(2)[target])  # the seed's np.eye(2)[label] targets
    assert torch.allclose(loop.criterion(recipe, out, target), seed_loss)
    assert torch.allclose(loop.criterion(recipe, out, target, "sum") / 4, seed_loss)
    assert recipes.MODELS["catsdogs"] == recipes.MODELS["folder"] == ("catsdogs",)
    assert recipes.DEFAULT_EPOCHS["catsdogs"] == 5


def test_the_bars_by_samples_seen() -> None:
    bar, basis = recipes.required_accuracy("catsdogs", "catsdogs", 100, 2000, 200, 2)
    assert bar is None and "under the" in basis
    least, expected = recipes.GENERATED_BARS[-1]
    bar, basis = recipes.required_accuracy("catsdogs", "catsdogs", least, 2000, 200, 2)
    assert bar == expected and f"{least:,}" in basis
    assert recipes.required_accuracy("folder", "catsdogs", 100, 500, 50, 4)[0] is None
    bar, basis = recipes.required_accuracy("folder", "catsdogs", 50_000, 500, 50, 4)
    assert bar == pytest.approx(0.30) and "4 classes" in basis


def _image(path: Path, seed: int, mode: str = "L", fmt: str = "JPEG") -> None:
    rng = random.Random(seed)
    size = (rng.randint(40, 120), rng.randint(40, 120))
    img = Image.new("L", size, rng.randint(0, 255))
    img.putdata([rng.randint(0, 255) for _ in range(size[0] * size[1])])
    img.convert(mode).save(path, fmt)


def messy(root: Path, classes: List[str], per_class: int = 6) -> Dict[str, int]:
    """Good JPEGs, an RGB PNG and a CMYK JPEG per class (all readable), plus the junk the real PetImages holds."""
    for c, name in enumerate(classes):
        folder = root / name
        folder.mkdir(parents=True)
        for i in range(per_class):
            _image(folder / f"{i}.jpg", 100 * c + i)
        _image(folder / "rgb.png", c, "RGB", "PNG")
        _image(folder / "cmyk.jpg", c + 50, "CMYK", "JPEG")
    bad = root / classes[0]
    (bad / "666.jpg").write_bytes(b"")  # zero bytes
    good = (bad / "0.jpg").read_bytes()
    (bad / "broken.jpg").write_bytes(good[: len(good) // 3])  # truncated
    (bad / "Thumbs.db").write_bytes(os.urandom(300))  # not an image
    return {"readable": len(classes) * (per_class + 2), "unreadable": 3}


def test_a_messy_folder_is_decoded_once_junk_counted_and_cached_outside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, cache = tmp_path / "PetImages", tmp_path / "cache"
    counts = messy(root, ["Cat", "Dog"])
    before = sorted(p.name for p in root.rglob("*"))
    bundle = images.from_folder(str(root), str(cache), 0)
    assert bundle.classes == 2
    assert bundle.train_size + bundle.test_size == counts["readable"]
    assert bundle.test_size == max(1, int(counts["readable"] * images.TEST_FRACTION))
    assert tuple(bundle.x_train.shape[1:]) == (1, 50, 50) and bundle.x_train.dtype == torch.uint8
    assert bundle.note == (
        "3 of 19 files could not be read as images and were skipped "
        f"({os.path.join('Cat', '666.jpg')}, {os.path.join('Cat', 'Thumbs.db')}, {os.path.join('Cat', 'broken.jpg')})"
    )
    assert sorted(p.name for p in root.rglob("*")) == before  # nothing written next to the user's files
    assert len(list((cache / "folders").glob("*.pt"))) == 1

    def no_decoding(path: str) -> None:
        raise AssertionError(f"decoded {path} although the listing is unchanged")

    monkeypatch.setattr(images, "decode", no_decoding)
    again = images.from_folder(str(root), str(cache), 0)
    assert torch.equal(again.x_train, bundle.x_train) and again.note == bundle.note

    _image(root / "Dog" / "new.jpg", 99)  # the listing changed: decoded afresh, a second cache entry
    monkeypatch.undo()
    grown = images.from_folder(str(root), str(cache), 0)
    assert grown.train_size + grown.test_size == counts["readable"] + 1
    assert len(list((cache / "folders").glob("*.pt"))) == 2


def test_three_classes_size_the_output(tmp_path: Path) -> None:
    messy(tmp_path / "data", ["a", "b", "c"], per_class=3)
    bundle = images.from_folder(str(tmp_path / "data"), None, 1)
    assert bundle.classes == 3
    assert set(torch.cat([bundle.y_train, bundle.y_test]).tolist()) == {0, 1, 2}


def test_generated_images_are_the_same_for_every_device_and_two_classes() -> None:
    a, b = images.generated(200, 50, 3), images.generated(200, 50, 3)
    assert torch.equal(a.x_train, b.x_train) and torch.equal(a.y_test, b.y_test)
    assert a.classes == 2 and set(a.y_train.tolist()) == {0, 1}
    assert tuple(a.x_train.shape) == (200, 1, 50, 50)


@pytest.mark.parametrize(
    "layout, message",
    [
        ("missing", "no such folder"),
        ("one", "only one class folder (cat) holds files; a classifier needs two or more"),
        ("empty", "no files in class folders"),
    ],
)
def test_a_bad_folder_is_a_one_line_input_error(tmp_path: Path, layout: str, message: str) -> None:
    root = tmp_path / "imgs"
    if layout != "missing":
        (root / "cat").mkdir(parents=True)
        (root / "dog").mkdir()
    if layout == "one":
        _image(root / "cat" / "1.jpg", 1)
    with pytest.raises(VerifyInputError) as info:
        run_verify(None, f"folder:{root}", None, False, None, None, 60.0)
    text = str(info.value)
    assert text.startswith(f"--train folder:{root}: ") and message in text and "\n" not in text


def test_plain_folder_without_a_path_is_an_input_error() -> None:
    with pytest.raises(VerifyInputError) as info:
        run_verify(None, "folder", None, False, None, None, 60.0)
    assert str(info.value) == "--train folder: give the folder as folder:PATH (PATH/<class>/<image>)"


def _verify(train: str, cache: Path, monkeypatch: pytest.MonkeyPatch) -> Facts:
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))  # gpudoctor's cache, where decoded folders are kept
    v = run_verify(
        None, train, None, False, None, 1, 120.0,
        cpu_seconds=0.5, cpu_steps=3, speed_batch=32, train_size=300, test_size=100, bench=False,
        env=dict(os.environ, **{ACCELERATOR_ENV: "cpu"}),
    )
    return Facts(verify=v)


def _verdicts(facts: Facts) -> Dict[str, str]:
    report = run_checks(Catalogue(tuple(CHECKS)), facts)
    return {r.check: r.status.value for r in report.results}


def test_verify_catsdogs_runs_the_four_judgements_on_generated_images(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    facts = _verify("catsdogs", tmp_path, monkeypatch)
    v = facts.verify
    assert v is not None and v.dataset == "catsdogs" and v.failures == ()
    assert [(r.model, r.device, r.batch_size, r.train_size) for r in v.runs] == [
        ("catsdogs", "cuda:0", 100, 300), ("catsdogs", "cpu", 100, 300)
    ]
    assert [p.model for d in v.devices for p in d.parity] == ["catsdogs"]
    assert v.parity_max_rel_diff == 0.0
    got = _verdicts(facts)
    assert {k: got[k] for k in ("verify.smoke", "verify.parity", "verify.learning")} == {
        "verify.smoke": "pass", "verify.parity": "pass", "verify.learning": "pass"
    }
    assert got["verify.speedup"] in ("pass", "warn", "fail")  # judged, whichever way the stand-in's speed goes


def test_verify_folder_trains_on_the_readable_images_and_names_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "PetImages"
    messy(root, ["Cat", "Dog", "Fox"], per_class=4)
    facts = _verify(f"folder:{root}", tmp_path / "cache", monkeypatch)
    v = facts.verify
    assert v is not None and v.dataset == "folder" and v.data_dir == str(root) and v.failures == ()
    gpu = next(r for r in v.runs if r.device == "cuda:0")
    assert gpu.train_size + gpu.test_size == 18
    assert gpu.accuracy_basis is not None and "3 of 21 files could not be read as images" in gpu.accuracy_basis
    assert list((tmp_path / "cache" / "gpudoctor" / "images" / "folders").glob("*.pt"))
    assert _verdicts(facts)["verify.parity"] == "pass"


def test_an_unbalanced_folder_must_beat_always_guessing_its_largest_class() -> None:
    import torch

    from gpudoctor.trainers.recipes import required_accuracy
    from gpudoctor.trainers.session import _majority_share

    labels = torch.tensor([0] * 90 + [1] * 10)
    assert _majority_share(labels) == 0.9
    assert _majority_share(torch.nn.functional.one_hot(labels, 2).float()) == 0.9
    assert _majority_share(torch.tensor([], dtype=torch.long)) is None
    bar, basis = required_accuracy("folder", "catsdogs", 20_000, 2_000, 100, 2, 0.9)
    assert bar == pytest.approx(0.95) and "the 90% that always guessing the largest class scores" in basis
    balanced, _ = required_accuracy("folder", "catsdogs", 20_000, 2_000, 100, 2, 0.5)
    assert balanced == pytest.approx(0.55)

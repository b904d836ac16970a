"""Seed 002's data: generated two-class 50x50 grayscale images, or a user's ImageFolder-style tree decoded once.

A folder (``root/<class>/<file>``, classes in name order) is read through Pillow: grayscale, resized once to 50x50,
files that cannot be decoded (zero bytes, truncated or corrupt, not images at all) skipped and counted. The decoded
uint8 tensor is cached under gpudoctor's cache, keyed by the folder's listing (names, sizes, modification times),
so a second run decodes nothing and nothing is ever written next to the user's files.
"""

from __future__ import annotations

import hashlib
import os
import warnings
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

if TYPE_CHECKING:
    from .data import Bundle

IMAGE_SIZE = 50
TEST_FRACTION = 0.1  # seed 002 keeps the last 10% of the shuffled images for testing
NAMED = 3  # unreadable files named in the report
CACHE_VERSION = "1"
# The generated images: faint strokes on a mid-grey background under strong pixel noise, so that the two classes
# take seed 002's CNN a few thousand samples to tell apart rather than a few hundred.
CONTRAST = 0.25
BACKGROUND = 96.0
NOISE = 48.0

Entry = Tuple[str, int, int, int]  # path relative to the root, class index, size in bytes, mtime in ns


class FolderError(ValueError):
    """The folder cannot be trained on; the message is one line for the user."""


def scan(root: str) -> Tuple[List[str], List[Entry]]:
    """The class folders of ``root`` (those holding at least one file) and every file in them, in name order."""
    if not os.path.isdir(root):
        raise FolderError(f"{root}: no such folder")
    classes: List[str] = []
    entries: List[Entry] = []
    for name in sorted(os.listdir(root)):
        folder = os.path.join(root, name)
        if name.startswith(".") or not os.path.isdir(folder):
            continue
        files: List[Entry] = []
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for filename in sorted(filenames):
                if filename.startswith("."):
                    continue
                path = os.path.join(dirpath, filename)
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                files.append((os.path.relpath(path, root), len(classes), st.st_size, st.st_mtime_ns))
        if files:
            classes.append(name)
            entries.extend(files)
    if not entries:
        raise FolderError(f"{root}: no files in class folders (expected {root}/<class>/<image>, two classes or more)")
    if len(classes) < 2:
        raise FolderError(
            f"{root}: only one class folder ({classes[0]}) holds files; a classifier needs two or more "
            f"({root}/<class>/<image>)"
        )
    return classes, entries


def listing_key(classes: List[str], entries: List[Entry]) -> str:
    """A digest of what the folder holds: class names, and each file's name, size and modification time."""
    digest = hashlib.sha256(f"v{CACHE_VERSION} {IMAGE_SIZE}\n".encode())
    digest.update(("\0".join(classes) + "\n").encode("utf-8", "surrogateescape"))
    for rel, label, size, mtime in entries:
        digest.update(f"{rel}\0{label}\0{size}\0{mtime}\n".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def decode(path: str) -> Optional[Any]:
    """One image as a 50x50 grayscale uint8 numpy array, or None when Pillow cannot read it."""
    import numpy as np
    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with Image.open(path) as img:
                img.load()
                gray = img.convert("L").resize((IMAGE_SIZE, IMAGE_SIZE), getattr(Image, "Resampling", Image).BILINEAR)
                return np.asarray(gray, dtype=np.uint8)
    except Exception:  # noqa: BLE001 - any file Pillow cannot decode is skipped and counted
        return None


def _decode_all(root: str, entries: List[Entry]) -> Dict[str, Any]:
    import numpy as np
    import torch

    images: List[Any] = []
    labels: List[int] = []
    skipped: List[str] = []
    for rel, label, _, _ in entries:
        pixels = decode(os.path.join(root, rel))
        if pixels is None:
            skipped.append(rel)
            continue
        images.append(pixels)
        labels.append(label)
    stacked = np.stack(images) if images else np.zeros((0, IMAGE_SIZE, IMAGE_SIZE), dtype=np.uint8)
    return {
        "images": torch.from_numpy(stacked).unsqueeze(1).contiguous(),
        "labels": torch.tensor(labels, dtype=torch.long),
        "skipped": len(skipped),
        "named": skipped[:NAMED],
    }


def _cached(root: str, cache_dir: Optional[str], classes: List[str], entries: List[Entry]) -> Dict[str, Any]:
    """The decoded folder, from the cache when its listing is unchanged; a cache that cannot be used is rebuilt."""
    import torch

    path = os.path.join(cache_dir, "folders", listing_key(classes, entries) + ".pt") if cache_dir else None
    if path and os.path.isfile(path):
        try:
            found = torch.load(path)
            if isinstance(found, dict) and {"images", "labels", "skipped", "named"} <= set(found):
                return found
        except Exception:  # noqa: BLE001 - a damaged cache file is decoded again
            pass
    decoded = _decode_all(root, entries)
    if path:
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            tmp = f"{path}.{os.getpid()}.tmp"
            torch.save(decoded, tmp)
            os.replace(tmp, path)
        except OSError:
            pass  # no cache: the next run decodes again
    return decoded


def from_folder(root: str, cache_dir: Optional[str], seed: int) -> "Bundle":
    """The folder's readable images, shuffled with ``seed`` and split 90/10 as seed 002 does."""
    import torch

    from .data import Bundle

    classes, entries = scan(root)
    decoded = _cached(root, cache_dir, classes, entries)
    images, labels = decoded["images"], decoded["labels"]
    n = int(labels.shape[0])
    present = sorted(set(labels.tolist()))
    if n < 2 or len(present) < 2:
        raise FolderError(
            f"{root}: {n} of {len(entries)} files could be read as images"
            + (f", all of class {classes[present[0]]}" if present else "")
            + "; two classes or more are needed"
        )
    perm = torch.randperm(n, generator=torch.Generator().manual_seed(seed))
    images, labels = images[perm], labels[perm]
    test = max(1, int(n * TEST_FRACTION))
    skipped = int(decoded["skipped"])
    note = ""
    if skipped:
        names = ", ".join(str(x) for x in decoded["named"])
        more = ", ..." if skipped > len(decoded["named"]) else ""
        note = f"{skipped} of {len(entries)} files could not be read as images and were skipped ({names}{more})"
    return Bundle(
        "folder", images[:-test], labels[:-test], images[-test:], labels[-test:], len(classes), note
    )


def generated(train_size: int, test_size: int, seed: int) -> "Bundle":
    """Two classes of 50x50 grayscale images (strokes on black, shifted, with noisy ink) standing in for
    Dogs-vs-Cats without a download; every device gets the same images."""
    import torch

    from .data import Bundle, _draw, _templates

    gen = torch.Generator().manual_seed(seed)
    shape = (1, IMAGE_SIZE, IMAGE_SIZE)
    templates = _templates(2, shape, gen)

    def draw(n: int) -> Tuple[Any, Any]:
        x, y = _draw(templates, n, shape, gen)
        noisy = x.float() * CONTRAST + BACKGROUND + NOISE * torch.randn(x.shape, generator=gen)
        return noisy.clamp_(0, 255).round_().to(torch.uint8), y

    x_train, y_train = draw(train_size)
    x_test, y_test = draw(test_size)
    return Bundle("catsdogs", x_train, y_train, x_test, y_test, 2)

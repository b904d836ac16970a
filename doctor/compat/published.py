"""Facts read from the published wheels' own metadata; rewritten by ``python -m gpudoctor.compat.refresh``."""

from __future__ import annotations

from typing import Tuple

DATA_DATE = '2026-11-24'
SOURCES: Tuple[str, ...] = (
    'https://pypi.org/pypi/torch/json as read on 2026-11-24',
    'https://pypi.org/pypi/torchvision/json as read on 2026-11-24',
    'https://pypi.org/pypi/torchaudio/json as read on 2026-11-24',
)

# (package, version, first upload, Python tags, platforms) of every PyPI release since torch 2.0.
PYPI_WHEELS: Tuple[Tuple[str, str, str, Tuple[str, ...], Tuple[str, ...]], ...] = (
    ('torch', '2.0.0', '2023-03-15', ('cp38', 'cp39', 'cp310', 'cp311'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'macos-x86_64', 'windows-x86_64')),
    ('torch', '2.0.1', '2023-05-08', ('cp38', 'cp39', 'cp310', 'cp311'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'macos-x86_64', 'windows-x86_64')),
    ('torch', '2.1.0', '2023-10-04', ('cp38', 'cp39', 'cp310', 'cp311'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'macos-x86_64', 'windows-x86_64')),
    ('torch', '2.1.1', '2023-11-15', ('cp38', 'cp39', 'cp310', 'cp311'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'macos-x86_64', 'windows-x86_64')),
    ('torch', '2.1.2', '2023-12-14', ('cp38', 'cp39', 'cp310', 'cp311'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'macos-x86_64', 'windows-x86_64')),
    ('torch', '2.2.0', '2024-01-30', ('cp38', 'cp39', 'cp310', 'cp311', 'cp312'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'macos-x86_64', 'windows-x86_64')),
    ('torch', '2.2.1', '2024-02-22', ('cp38', 'cp39', 'cp310', 'cp311', 'cp312'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'macos-x86_64', 'windows-x86_64')),
    ('torch', '2.2.2', '2024-03-27', ('cp38', 'cp39', 'cp310', 'cp311', 'cp312'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'macos-x86_64', 'windows-x86_64')),
    ('torch', '2.3.0', '2024-04-24', ('cp38', 'cp39', 'cp310', 'cp311', 'cp312'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torch', '2.3.1', '2024-06-05', ('cp38', 'cp39', 'cp310', 'cp311', 'cp312'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torch', '2.4.0', '2024-07-24', ('cp38', 'cp39', 'cp310', 'cp311', 'cp312'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torch', '2.4.1', '2024-09-04', ('cp38', 'cp39', 'cp310', 'cp311', 'cp312'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torch', '2.5.0', '2024-10-17', ('cp39', 'cp310', 'cp311', 'cp312', 'cp313'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torch', '2.5.1', '2024-10-29', ('cp39', 'cp310', 'cp311', 'cp312', 'cp313'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torch', '2.6.0', '2025-01-29', ('cp39', 'cp310', 'cp311', 'cp312', 'cp313'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torch', '2.7.0', '2025-04-23', ('cp39', 'cp310', 'cp311', 'cp312', 'cp313', 'cp313t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torch', '2.7.1', '2025-06-04', ('cp39', 'cp310', 'cp311', 'cp312', 'cp313', 'cp313t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torch', '2.8.0', '2025-08-06', ('cp39', 'cp310', 'cp311', 'cp312', 'cp313', 'cp313t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torch', '2.9.0', '2025-10-15', ('cp310', 'cp311', 'cp312', 'cp313', 'cp313t', 'cp314', 'cp314t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torch', '2.9.1', '2025-11-12', ('cp310', 'cp311', 'cp312', 'cp313', 'cp313t', 'cp314', 'cp314t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torch', '2.10.0', '2026-01-21', ('cp310', 'cp311', 'cp312', 'cp313', 'cp313t', 'cp314', 'cp314t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torch', '2.11.0', '2026-03-23', ('cp310', 'cp311', 'cp312', 'cp313', 'cp313t', 'cp314', 'cp314t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torch', '2.12.0', '2026-05-13', ('cp310', 'cp311', 'cp312', 'cp313', 'cp313t', 'cp314', 'cp314t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torch', '2.12.1', '2026-06-17', ('cp310', 'cp311', 'cp312', 'cp313', 'cp314', 'cp314t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torch', '2.13.0', '2026-07-08', ('cp310', 'cp311', 'cp312', 'cp313', 'cp314', 'cp314t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torch', '2.14.0', '2026-09-02', ('cp310', 'cp311', 'cp312', 'cp313', 'cp314', 'cp314t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torch', '2.14.1', '2026-09-30', ('cp310', 'cp311', 'cp312', 'cp313', 'cp314', 'cp314t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torch', '2.15.0', '2026-10-28', ('cp311', 'cp312', 'cp313', 'cp314', 'cp314t', 'cp315', 'cp315t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchvision', '0.15.1', '2023-03-15', ('cp38', 'cp39', 'cp310', 'cp311'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'macos-x86_64', 'windows-x86_64')),
    ('torchvision', '0.15.2', '2023-05-08', ('cp38', 'cp39', 'cp310', 'cp311'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'macos-x86_64', 'windows-x86_64')),
    ('torchvision', '0.16.0', '2023-10-04', ('cp38', 'cp39', 'cp310', 'cp311'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'macos-x86_64', 'windows-x86_64')),
    ('torchvision', '0.16.1', '2023-11-15', ('cp38', 'cp39', 'cp310', 'cp311'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'macos-x86_64', 'windows-x86_64')),
    ('torchvision', '0.16.2', '2023-12-14', ('cp38', 'cp39', 'cp310', 'cp311'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'macos-x86_64', 'windows-x86_64')),
    ('torchvision', '0.17.0', '2024-01-30', ('cp38', 'cp39', 'cp310', 'cp311', 'cp312'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'macos-x86_64', 'windows-x86_64')),
    ('torchvision', '0.17.1', '2024-02-22', ('cp38', 'cp39', 'cp310', 'cp311', 'cp312'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'macos-x86_64', 'windows-x86_64')),
    ('torchvision', '0.17.2', '2024-03-27', ('cp38', 'cp39', 'cp310', 'cp311', 'cp312'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'macos-x86_64', 'windows-x86_64')),
    ('torchvision', '0.18.0', '2024-04-24', ('cp38', 'cp39', 'cp310', 'cp311', 'cp312'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchvision', '0.18.1', '2024-06-05', ('cp38', 'cp39', 'cp310', 'cp311', 'cp312'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchvision', '0.19.0', '2024-07-24', ('cp38', 'cp39', 'cp310', 'cp311', 'cp312'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchvision', '0.19.1', '2024-09-04', ('cp38', 'cp39', 'cp310', 'cp311', 'cp312'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchvision', '0.20.0', '2024-10-17', ('cp39', 'cp310', 'cp311', 'cp312'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchvision', '0.20.1', '2024-10-29', ('cp39', 'cp310', 'cp311', 'cp312'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchvision', '0.21.0', '2025-01-29', ('cp39', 'cp310', 'cp311', 'cp312', 'cp313'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchvision', '0.22.0', '2025-04-23', ('cp39', 'cp310', 'cp311', 'cp312', 'cp313', 'cp313t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchvision', '0.22.1', '2025-06-04', ('cp39', 'cp310', 'cp311', 'cp312', 'cp313', 'cp313t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchvision', '0.23.0', '2025-08-06', ('cp39', 'cp310', 'cp311', 'cp312', 'cp313', 'cp313t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchvision', '0.24.0', '2025-10-15', ('cp310', 'cp311', 'cp312', 'cp313', 'cp313t', 'cp314', 'cp314t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchvision', '0.24.1', '2025-11-12', ('cp310', 'cp311', 'cp312', 'cp313', 'cp313t', 'cp314', 'cp314t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchvision', '0.25.0', '2026-01-21', ('cp310', 'cp311', 'cp312', 'cp313', 'cp313t', 'cp314', 'cp314t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchvision', '0.26.0', '2026-03-23', ('cp310', 'cp311', 'cp312', 'cp313', 'cp313t', 'cp314', 'cp314t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchvision', '0.27.0', '2026-05-13', ('cp310', 'cp311', 'cp312', 'cp313', 'cp313t', 'cp314', 'cp314t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchvision', '0.27.1', '2026-06-17', ('cp310', 'cp311', 'cp312', 'cp313', 'cp314', 'cp314t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchvision', '0.28.0', '2026-07-08', ('cp310', 'cp311', 'cp312', 'cp313', 'cp314', 'cp314t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchvision', '0.29.0', '2026-09-02', ('cp310', 'cp311', 'cp312', 'cp313', 'cp314', 'cp314t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchvision', '0.29.1', '2026-09-30', ('cp310', 'cp311', 'cp312', 'cp313', 'cp314', 'cp314t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchvision', '0.29.2', '2026-10-28', ('py3',), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchaudio', '2.0.1', '2023-03-15', ('cp38', 'cp39', 'cp310', 'cp311'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'macos-x86_64', 'windows-x86_64')),
    ('torchaudio', '2.0.2', '2023-05-08', ('cp38', 'cp39', 'cp310', 'cp311'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'macos-x86_64', 'windows-x86_64')),
    ('torchaudio', '2.1.0', '2023-10-04', ('cp38', 'cp39', 'cp310', 'cp311'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'macos-x86_64', 'windows-x86_64')),
    ('torchaudio', '2.1.1', '2023-11-15', ('cp38', 'cp39', 'cp310', 'cp311'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'macos-x86_64', 'windows-x86_64')),
    ('torchaudio', '2.1.2', '2023-12-14', ('cp38', 'cp39', 'cp310', 'cp311'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'macos-x86_64', 'windows-x86_64')),
    ('torchaudio', '2.2.0', '2024-01-30', ('cp38', 'cp39', 'cp310', 'cp311', 'cp312'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'macos-x86_64', 'windows-x86_64')),
    ('torchaudio', '2.2.1', '2024-02-22', ('cp38', 'cp39', 'cp310', 'cp311', 'cp312'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'macos-x86_64', 'windows-x86_64')),
    ('torchaudio', '2.2.2', '2024-03-27', ('cp38', 'cp39', 'cp310', 'cp311', 'cp312'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'macos-x86_64', 'windows-x86_64')),
    ('torchaudio', '2.3.0', '2024-04-24', ('cp38', 'cp39', 'cp310', 'cp311', 'cp312'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchaudio', '2.3.1', '2024-06-05', ('cp38', 'cp39', 'cp310', 'cp311', 'cp312'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchaudio', '2.4.0', '2024-07-24', ('cp38', 'cp39', 'cp310', 'cp311', 'cp312'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchaudio', '2.4.1', '2024-09-04', ('cp38', 'cp39', 'cp310', 'cp311', 'cp312'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchaudio', '2.5.0', '2024-10-17', ('cp39', 'cp310', 'cp311', 'cp312'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchaudio', '2.5.1', '2024-10-29', ('cp39', 'cp310', 'cp311', 'cp312'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchaudio', '2.6.0', '2025-01-29', ('cp39', 'cp310', 'cp311', 'cp312', 'cp313'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchaudio', '2.7.0', '2025-04-23', ('cp39', 'cp310', 'cp311', 'cp312', 'cp313', 'cp313t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchaudio', '2.7.1', '2025-06-04', ('cp39', 'cp310', 'cp311', 'cp312', 'cp313', 'cp313t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchaudio', '2.8.0', '2025-08-06', ('cp39', 'cp310', 'cp311', 'cp312', 'cp313', 'cp313t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchaudio', '2.9.0', '2025-10-15', ('cp310', 'cp311', 'cp312', 'cp313', 'cp313t', 'cp314', 'cp314t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchaudio', '2.9.1', '2025-11-12', ('cp310', 'cp311', 'cp312', 'cp313', 'cp313t', 'cp314', 'cp314t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchaudio', '2.10.0', '2026-01-21', ('cp310', 'cp311', 'cp312', 'cp313', 'cp313t', 'cp314', 'cp314t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
    ('torchaudio', '2.11.0', '2026-03-23', ('cp310', 'cp311', 'cp312', 'cp313', 'cp313t', 'cp314', 'cp314t'), ('linux-aarch64', 'linux-x86_64', 'macos-arm64', 'windows-x86_64')),
)

# (package, newest version, its Requires-Dist lines on torch, the CUDA toolkit and cuDNN).
PYPI_REQUIRES: Tuple[Tuple[str, str, Tuple[str, ...]], ...] = (
    ('torch', '2.15.0', ('cuda-toolkit[cublas,cudart,cufft,cufile,cupti,cusolver,cusparse,nvjitlink,nvrtc,nvtx]==13.2.2; platform_system == "Linux"', 'nvidia-cudnn-cu13==9.26.0.51; platform_system == "Linux"')),
    ('torchvision', '0.29.2', ('torch>=2.14.0',)),
    ('torchaudio', '2.11.0', ('torch>=2.11',)),
)

# (package, version, variant, Python tags, platforms) on download.pytorch.org; () when not read.
INDEX_WHEELS: Tuple[Tuple[str, str, str, Tuple[str, ...], Tuple[str, ...]], ...] = (
)

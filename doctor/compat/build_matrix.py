"""Each torch release's build matrix as pytorch/test-infra states it; rewritten by the refresh command."""

from __future__ import annotations

from typing import Optional, Tuple

MATRIX_SOURCE = 'pytorch/test-infra tools/scripts/generate_binary_build_matrix.py (git history to 68ad02211b6b)'
MATRIX_DATE = '2026-08-21'  # the newest commit read

# (torch, channel, confidence, ref, commit, commit date, Linux x86_64 CUDA variants, Linux aarch64 CUDA
#  variants (None: not stated), Windows CUDA variants (None: no exclusion list), Python versions,
#  the variant installed without --index-url (None: not stated), ((variant, cuDNN major), ...)).
# release rows: the release channel at the go-live commit, SECONDARY; test/nightly rows: what was built
# for a candidate or nightly, UNCONFIRMED.
Row = Tuple[str, str, str, str, str, str, Tuple[str, ...], Optional[Tuple[str, ...]],
            Optional[Tuple[str, ...]], Tuple[str, ...], Optional[str], Tuple[Tuple[str, str], ...]]
BUILD_MATRIX: Tuple[Row, ...] = (
    ('2.0.0', 'release', 'SECONDARY', 'HEAD', 'd3629fa2e61bb5fe4fcf435a3f05aed3de7755b7', '2023-03-14', ('cu117', 'cu118'), None, None, ('3.8', '3.9', '3.10', '3.11'), None, ()),
    ('2.0.1', 'release', 'SECONDARY', 'HEAD', 'bc96de98347602d4a6a6d9bd6735e2376aec582c', '2023-05-05', ('cu117', 'cu118'), None, None, ('3.8', '3.9', '3.10', '3.11'), None, ()),
    ('2.1.0', 'release', 'SECONDARY', 'HEAD', 'bc64926943adf7a26ae08bf8698cf529905f57cd', '2023-10-03', ('cu118', 'cu121'), None, None, ('3.8', '3.9', '3.10', '3.11'), None, ()),
    ('2.1.1', 'release', 'SECONDARY', 'HEAD', '7af3f97894a6c372555fd60520807bbf0868d8d2', '2023-11-14', ('cu118', 'cu121'), None, None, ('3.8', '3.9', '3.10', '3.11'), None, ()),
    ('2.1.2', 'release', 'SECONDARY', 'HEAD', '894576bf782dc1f7abaff1859416024b91dbb701', '2023-12-14', ('cu118', 'cu121'), None, None, ('3.8', '3.9', '3.10', '3.11'), None, ()),
    ('2.1.2', 'test', 'UNCONFIRMED', 'release/2.1', 'd0f7bc95c5f5cfbbfbd7ca5144e1b7c04e2ebd9e', '2023-12-13', ('cu118', 'cu121'), None, None, ('3.8', '3.9', '3.10', '3.11'), None, ()),
    ('2.2.0', 'release', 'SECONDARY', 'HEAD', '8e04a8e90bb206262f0c2404a5f9edea9f71f23b', '2024-01-29', ('cu118', 'cu121'), None, None, ('3.8', '3.9', '3.10', '3.11', '3.12'), None, ()),
    ('2.2.1', 'release', 'SECONDARY', 'HEAD', '344206d4bf7f2938e95c3270d591432a23aa31c0', '2024-02-21', ('cu118', 'cu121'), None, None, ('3.8', '3.9', '3.10', '3.11', '3.12'), None, ()),
    ('2.2.2', 'release', 'SECONDARY', 'HEAD', '3f3e198b24f71d2813efdf43095ce2f69bb197f9', '2024-03-26', ('cu118', 'cu121'), None, None, ('3.8', '3.9', '3.10', '3.11', '3.12'), None, ()),
    ('2.2.2', 'test', 'UNCONFIRMED', 'release/2.2', '594c42b7e0547741f2d16aec18460d02167c3c3c', '2024-03-20', ('cu118', 'cu121'), None, None, ('3.8', '3.9', '3.10', '3.11', '3.12'), None, ()),
    ('2.3.0', 'release', 'SECONDARY', 'HEAD', '585bbc3772a53b4d577060a2f3cea9ba19963002', '2024-04-23', ('cu118', 'cu121'), None, None, ('3.8', '3.9', '3.10', '3.11', '3.12'), None, ()),
    ('2.3.1', 'release', 'SECONDARY', 'HEAD', '6a67497623f3a4b4fab03604b88be1331c024677', '2024-06-04', ('cu118', 'cu121'), None, None, ('3.8', '3.9', '3.10', '3.11', '3.12'), None, ()),
    ('2.3.1', 'test', 'UNCONFIRMED', 'release/2.3', '8eb9c9e5878fe4693951c34addc60c55f959bbed', '2024-05-23', ('cu118', 'cu121'), None, None, ('3.8', '3.9', '3.10', '3.11', '3.12'), None, ()),
    ('2.4.0', 'release', 'SECONDARY', 'HEAD', 'ac9a718ca8506e17a862a3b3953216cc8ee82332', '2024-07-23', ('cu118', 'cu121', 'cu124'), None, None, ('3.8', '3.9', '3.10', '3.11', '3.12'), None, ()),
    ('2.4.1', 'release', 'SECONDARY', 'HEAD', 'ccfc962e9a754f962f5bb8a334bfe6baee466f69', '2024-09-04', ('cu118', 'cu121', 'cu124'), None, None, ('3.8', '3.9', '3.10', '3.11', '3.12'), None, ()),
    ('2.4.1', 'test', 'UNCONFIRMED', 'release/2.4', 'c6b59bac8ac753b08624093e98913cc08008acb2', '2024-09-13', ('cu118', 'cu121', 'cu124'), None, None, ('3.8', '3.9', '3.10', '3.11', '3.12'), None, ()),
    ('2.5.0', 'release', 'SECONDARY', 'HEAD', '5510fd052cc66916e5603848ec1553ef4b692d76', '2024-10-16', ('cu118', 'cu121', 'cu124'), None, None, ('3.9', '3.10', '3.11', '3.12'), None, ()),
    ('2.5.1', 'release', 'SECONDARY', 'HEAD', '29912dec4567529a8aa7d124b7610c06b1648acb', '2024-10-29', ('cu118', 'cu121', 'cu124'), None, None, ('3.9', '3.10', '3.11', '3.12'), None, ()),
    ('2.5.1', 'test', 'UNCONFIRMED', 'release/2.5', 'a3571a12d16dff856a109be09b336dc20b899ac8', '2024-11-18', ('cu118', 'cu121', 'cu124'), None, None, ('3.9', '3.10', '3.11', '3.12'), None, ()),
    ('2.6.0', 'release', 'SECONDARY', 'HEAD', 'b1bdc3323fa17bb8a75b98cb50c3966928afae9e', '2025-01-28', ('cu118', 'cu124', 'cu126'), None, None, ('3.9', '3.10', '3.11', '3.12', '3.13'), None, ()),
    ('2.6.0', 'test', 'UNCONFIRMED', 'release/2.6', 'c7b15168952cc0b0a2a60634a91a4eb82cff6555', '2024-12-20', ('cu118', 'cu124', 'cu126'), None, None, ('3.9', '3.10', '3.11', '3.12', '3.13'), None, ()),
    ('2.7.0', 'release', 'SECONDARY', 'HEAD', 'bad60f65d402b7a3d28696c019252d266bc2f249', '2025-04-22', ('cu118', 'cu126', 'cu128'), ('cu128',), None, ('3.9', '3.10', '3.11', '3.12', '3.13', '3.13t'), 'cu126', (('cu118', '9'), ('cu126', '9'), ('cu128', '9'))),
    ('2.7.1', 'release', 'SECONDARY', 'HEAD', '30ee1aaacba755d3d0aa2394f006b3481e56f5f2', '2025-06-03', ('cu118', 'cu126', 'cu128'), ('cu128',), None, ('3.9', '3.10', '3.11', '3.12', '3.13', '3.13t'), 'cu126', (('cu118', '9'), ('cu126', '9'), ('cu128', '9'))),
    ('2.7.1', 'test', 'UNCONFIRMED', 'release/2.7', '6d2fc05fbda2d823aa647a3e57f930cd63ecb0da', '2025-05-09', ('cu118', 'cu126', 'cu128'), ('cu128',), None, ('3.9', '3.10', '3.11', '3.12', '3.13', '3.13t'), 'cu126', (('cu118', '9'), ('cu126', '9'), ('cu128', '9'))),
    ('2.8.0', 'release', 'SECONDARY', 'HEAD', '21480431af19ade432709cad640178556246ced4', '2025-08-06', ('cu126', 'cu128', 'cu129'), ('cu129',), None, ('3.9', '3.10', '3.11', '3.12', '3.13', '3.13t'), 'cu128', (('cu126', '9'), ('cu128', '9'), ('cu129', '9'))),
    ('2.8.0', 'test', 'UNCONFIRMED', 'release/2.8', '049cd025d3e0680b4d40230b6dc7a1ad7098359d', '2025-06-26', ('cu126', 'cu128', 'cu129'), ('cu129',), None, ('3.9', '3.10', '3.11', '3.12', '3.13', '3.13t'), 'cu128', (('cu126', '9'), ('cu128', '9'), ('cu129', '9'))),
    ('2.9.0', 'release', 'SECONDARY', 'HEAD', 'f563b660a36d6730ecab6ac1f3f691955e62223b', '2025-10-14', ('cu126', 'cu128', 'cu130'), ('cu126', 'cu128', 'cu130'), None, ('3.10', '3.11', '3.12', '3.13', '3.14', '3.14t'), 'cu128', (('cu126', '9'), ('cu128', '9'), ('cu130', '9'))),
    ('2.9.1', 'release', 'SECONDARY', 'HEAD', '06789010bfc67d96cc1e4ce06c8c7c711435e692', '2025-11-11', ('cu126', 'cu128', 'cu130'), ('cu126', 'cu128', 'cu130'), None, ('3.10', '3.11', '3.12', '3.13', '3.14', '3.14t'), 'cu128', (('cu126', '9'), ('cu128', '9'), ('cu130', '9'))),
    ('2.9.1', 'test', 'UNCONFIRMED', 'release/2.9', 'f3ee5ce046963b83b12b2e394f220b4a3a69409b', '2025-11-07', ('cu126', 'cu128', 'cu129', 'cu130'), ('cu126', 'cu128', 'cu129', 'cu130'), None, ('3.10', '3.11', '3.12', '3.13', '3.13t', '3.14', '3.14t'), 'cu128', (('cu126', '9'), ('cu128', '9'), ('cu129', '9'), ('cu130', '9'))),
    ('2.10.0', 'release', 'SECONDARY', 'HEAD', 'e8208cf27137d9e5f8f5c48e8c01749f32b6f261', '2026-01-20', ('cu126', 'cu128', 'cu130'), ('cu126', 'cu128', 'cu130'), None, ('3.10', '3.11', '3.12', '3.13', '3.13t', '3.14', '3.14t'), 'cu128', (('cu126', '9'), ('cu128', '9'), ('cu130', '9'))),
    ('2.10.0', 'test', 'UNCONFIRMED', 'release/2.10', '894c987714bd5f675148748995ea4d2d51d64529', '2025-12-11', ('cu126', 'cu128', 'cu129', 'cu130'), ('cu126', 'cu128', 'cu129', 'cu130'), None, ('3.10', '3.11', '3.12', '3.13', '3.13t', '3.14', '3.14t'), 'cu128', (('cu126', '9'), ('cu128', '9'), ('cu129', '9'), ('cu130', '9'))),
    ('2.11.0', 'release', 'SECONDARY', 'HEAD', '0cd5e78a1246e7842aa9c2f8d0c8c39ef139332e', '2026-03-23', ('cu126', 'cu128', 'cu130'), ('cu126', 'cu128', 'cu130'), None, ('3.10', '3.11', '3.12', '3.13', '3.13t', '3.14', '3.14t'), 'cu130', (('cu126', '9'), ('cu128', '9'), ('cu130', '9'))),
    ('2.11.0', 'test', 'UNCONFIRMED', 'release/2.11', 'ed05dfff4b222839515d3901d250658abba1f90d', '2026-03-18', ('cu126', 'cu128', 'cu129', 'cu130'), ('cu126', 'cu128', 'cu129', 'cu130'), None, ('3.10', '3.11', '3.12', '3.13', '3.13t', '3.14', '3.14t'), 'cu128', (('cu126', '9'), ('cu128', '9'), ('cu129', '9'), ('cu130', '9'))),
    ('2.12.0', 'release', 'SECONDARY', 'HEAD', '626d4e7081564c2af7b8ec0216b808371bc4e970', '2026-05-12', ('cu126', 'cu130', 'cu132'), ('cu126', 'cu130', 'cu132'), None, ('3.10', '3.11', '3.12', '3.13', '3.14', '3.14t'), 'cu130', (('cu126', '9'), ('cu130', '9'), ('cu132', '9'))),
    ('2.12.1', 'release', 'SECONDARY', 'HEAD', '77e179c3b70da087b512d101bddbc50a7c5154c9', '2026-06-17', ('cu126', 'cu130', 'cu132'), ('cu126', 'cu130', 'cu132'), None, ('3.10', '3.11', '3.12', '3.13', '3.14', '3.14t'), 'cu130', (('cu126', '9'), ('cu130', '9'), ('cu132', '9'))),
    ('2.12.1', 'test', 'UNCONFIRMED', 'release/2.12', '258d5618ffeb350a44be50a51088e7323a24441d', '2026-06-17', ('cu126', 'cu129', 'cu130', 'cu132'), ('cu126', 'cu129', 'cu130', 'cu132'), None, ('3.10', '3.11', '3.12', '3.13', '3.14', '3.14t'), 'cu130', (('cu126', '9'), ('cu129', '9'), ('cu130', '9'), ('cu132', '9'))),
    ('2.13.0', 'release', 'SECONDARY', 'HEAD', '6d36e31f45e831e85d4cc8a7a112fa4a02fd4dd8', '2026-07-08', ('cu126', 'cu130', 'cu132'), ('cu126', 'cu130', 'cu132'), None, ('3.10', '3.11', '3.12', '3.13', '3.14', '3.14t'), 'cu130', (('cu126', '9'), ('cu130', '9'), ('cu132', '9'))),
    ('2.13.0', 'test', 'UNCONFIRMED', 'release/2.13', '80178294ea678651dbe5b28b3770ee9b0e1d6521', '2026-07-08', ('cu126', 'cu129', 'cu130', 'cu132'), ('cu126', 'cu129', 'cu130', 'cu132'), None, ('3.10', '3.11', '3.12', '3.13', '3.14', '3.14t'), 'cu130', (('cu126', '9'), ('cu129', '9'), ('cu130', '9'), ('cu132', '9'))),
    ('2.14.0', 'test', 'UNCONFIRMED', 'release/2.14', 'c840391a15b90d8bc60be5667e7612fbb90b6bfe', '2026-08-21', ('cu126', 'cu130', 'cu132'), ('cu126', 'cu130', 'cu132'), ('cu126', 'cu130', 'cu132'), ('3.10', '3.11', '3.12', '3.13', '3.14', '3.14t', '3.15', '3.15t'), 'cu130', (('cu126', '9'), ('cu130', '9'), ('cu132', '9'))),
    ('2.15.0', 'nightly', 'UNCONFIRMED', 'HEAD', '68ad02211b6b961cbdf5531c08ce114d3008052f', '2026-08-18', ('cu126', 'cu130', 'cu132', 'cu134'), ('cu126', 'cu130', 'cu132', 'cu134'), ('cu126', 'cu130', 'cu132'), ('3.10', '3.11', '3.12', '3.13', '3.14', '3.14t', '3.15', '3.15t'), 'cu130', (('cu126', '9'), ('cu130', '9'), ('cu132', '9'), ('cu134', '9'))),
)

"""Parsers for machine output pasted whole: nvidia-smi, nvcc, ldd, LD_LIBRARY_PATH, dmesg Xid and arch lists."""

from __future__ import annotations

import re
from typing import Iterator, Optional, Tuple

from gpudoctor.parsers.paste.observe import Observation, observe
from gpudoctor.parsers.paste.segments import Line, Segment

# versions are bounded in length: a paste's digits are not trusted to be a version of any size
_SMI_HEAD = re.compile(r"NVIDIA-SMI\s+(\d{1,4}(?:\.\d{1,4}){0,3})\s+Driver Version:\s*(\d{1,4}(?:\.\d{1,4}){0,3})(?![\d.])"
                       r"(?:\s+CUDA Version:\s*(\d{1,2}\.\d{1,2}|N/A))?")
_SMI_ROW = re.compile(
    r"^\|\s*(\d{1,2})\s+(.+?)\s+(On|Off|WDDM|TCC)\s*\|\s*([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d)"
)
_SMI_PROCESS = re.compile(r"^\|\s+\d+\s+(?:\S+\s+\S+\s+)?\d+\s+[CG](?:\+G)?\s+\S")  # a listed GPU process
_SMI_MEM = re.compile(r"\|\s*(\d+)MiB\s*/\s*(\d+)MiB\s*\|")
# the row's last column: GPU-Util and the compute mode ("  1%   Prohibited |", "0%   E. Process |")
_SMI_MODE = re.compile(r"\|\s*(?:\d+%|N/A)\s+(Default|E\. Process|E\. Thread|Prohibited)\s*\|")
_MODES = {"Default": "default", "E. Process": "exclusive_process", "E. Thread": "exclusive_thread",
          "Prohibited": "prohibited"}
# one entry of `nvidia-smi -L`; a Markdown paragraph may run several entries into one line
_SMI_L = re.compile(r"(?:^|\s)GPU\s+(\d{1,2}):\s+(.+?)\s*\(UUID:\s*(GPU-[0-9a-fA-F-]+)\)")
_NVCC = re.compile(r"Cuda compilation tools, release (\d+\.\d+), V([\d.]+)")
_LDD = re.compile(r"^\s*(lib[\w+.-]*\.so[\w.]*)\s+=>\s+(not found|(/\S+))")
_LD_ASSIGN = re.compile(r"^\s*(?:export\s+|\$\s*)?LD_LIBRARY_PATH\s*[=:]\s*['\"]?([^'\"\s]+)")
_PATHS = re.compile(r"^\s*(/[^\s:]+(?::/[^\s:]*)*)\s*$")
_XID = re.compile(r"NVRM: Xid \(([^)]*)\):\s*(\d+)\s*,?\s*(.*)")
_ARCH_LIST = re.compile(r"^\s*(?:>>>\s*)?\[\s*((?:['\"](?:sm|compute)_\d+[a-z]?['\"]\s*,?\s*)+)\]\s*$")
_ARCH_TOKEN = re.compile(r"(?:sm|compute)_\d+[a-z]?")
_CC_TUPLE = re.compile(r"^\s*\((\d{1,2}),\s*(\d)\)\s*$")


def nvidia_smi(segment: Segment) -> Iterator[Observation]:
    """The nvidia-smi header and GPU rows, and `nvidia-smi -L` lines; memory in use only when the table's process
    list is shown empty, so that the memory is someone else's (a program's own use is listed as its process)."""
    in_table = False
    used: list[tuple[int, Line]] = []
    processes: Optional[int] = None  # rows under "Processes:", once that header is seen
    for line in segment.lines:
        text = line.text
        if in_table and "Processes:" in text:
            processes = 0
            continue
        if processes is not None:
            if _SMI_PROCESS.match(text):
                processes += 1
            continue
        if "NVIDIA-SMI" in text:
            m = _SMI_HEAD.search(text)
            if m:
                in_table = True
                tool, kernel = m.group(1), m.group(2)
                # nvidia-smi of one driver branch over the kernel module of another (under WSL, Windows' driver of the
                # same branch is normal: 550.90.07 over 552.55)
                if abs(int(tool.split(".")[0]) - int(kernel.split(".")[0])) >= 5:
                    yield observe("driver.kernel_module_version", kernel, segment, line, "nvidia-smi")
                    yield observe("driver.version", tool, segment, line, "nvidia-smi")
                    continue
                yield observe("driver.version", kernel, segment, line, "nvidia-smi")
                if m.group(3) and m.group(3) != "N/A":
                    yield observe("driver.cuda_version", m.group(3), segment, line, "nvidia-smi")
            continue
        if in_table and text.startswith("|"):
            m = _SMI_ROW.match(text)
            if m:
                name = re.sub(r"\s*\.\.\.$", "", m.group(2)).strip()
                yield observe("gpus", (int(m.group(1)), name), segment, line, "nvidia-smi")
                continue
            m = _SMI_MEM.search(text)
            if m:
                yield observe("gpus.memory_total_mib", int(m.group(2)), segment, line, "nvidia-smi")
                used.append((int(m.group(1)), line))
                mode = _SMI_MODE.search(text, m.end() - 1)
                if mode:
                    yield observe("gpus.compute_mode", _MODES[mode.group(1)], segment, line, "nvidia-smi")
            continue
        if text.lstrip().startswith("GPU ") and "UUID" in text:
            for m in _SMI_L.finditer(text):
                yield observe("gpus", (int(m.group(1)), m.group(2).strip()), segment, line, "nvidia-smi -L")
    if processes == 0:
        for mib, at in used:
            yield observe("gpus.memory_used_mib", mib, segment, at, "nvidia-smi")


def nvcc(segment: Segment) -> Iterator[Observation]:
    for line in segment.lines:
        if "compilation tools" in line.text:
            m = _NVCC.search(line.text)
            if m:
                yield observe("toolkit.nvcc_version", m.group(1), segment, line, "nvcc --version")


def ldd(segment: Segment) -> Iterator[Observation]:
    """`ldd` lines: CUDA libraries that resolve (and where) or are not found."""
    for line in segment.lines:
        if "=>" not in line.text:
            continue
        m = _LDD.match(line.text)
        if not m or not re.match(r"lib(cu|nv|nccl|c10|torch)", m.group(1)):
            continue
        if m.group(3):
            yield observe("torch.loaded_libraries", m.group(3), segment, line, "ldd")
        else:
            yield observe("ldd.not_found", m.group(1), segment, line, "ldd")


_LD_SELF = re.compile(r"\$\{?LD_LIBRARY_PATH\}?")


def _ld_value(lines: tuple[Line, ...], i: int) -> Optional[str]:
    """The value of LD_LIBRARY_PATH on line ``i`` (an assignment) or on the line after an `echo` of it."""
    text = lines[i].text
    m = _LD_ASSIGN.match(text)
    if m:
        value = _LD_SELF.sub("", m.group(1)).strip(":")  # "/opt/x/lib:$LD_LIBRARY_PATH": the folders it adds
        return value if value and "$" not in value else None
    if re.search(r"echo\s+['\"]?\$\{?LD_LIBRARY_PATH", text) and i + 1 < len(lines):
        m = _PATHS.match(lines[i + 1].text)
        return m.group(1) if m else None
    return None


def ld_library_path(segment: Segment) -> Iterator[Observation]:
    """LD_LIBRARY_PATH as a segment leaves it: an echo of it, or its assignments in order, where one that names
    $LD_LIBRARY_PATH adds its folders before (or after) what the earlier ones set."""
    lines = segment.lines
    current: Tuple[str, ...] = ()
    last: Optional[Line] = None
    for i, line in enumerate(lines):
        if "LD_LIBRARY_PATH" not in line.text:
            continue
        value = _ld_value(lines, i)
        if not value:
            continue
        entries = tuple(entry for entry in value.split(":") if entry)
        assign = _LD_ASSIGN.match(line.text)
        if assign and _LD_SELF.search(assign.group(1)):
            before = assign.group(1).find("$") > 0  # "/new:$LD_LIBRARY_PATH" puts the new folders first
            current = tuple(dict.fromkeys(entries + current if before else current + entries))
        else:
            current = entries
        last = line if assign else lines[i + 1]
    if current and last is not None:
        yield observe("libraries.ld_library_path", current, segment, last, "LD_LIBRARY_PATH")


def dmesg_xid(segment: Segment) -> Iterator[Observation]:
    for line in segment.lines:
        if "Xid" in line.text:
            m = _XID.search(line.text)
            if m:
                yield observe("xid", f"{int(m.group(2))}: {m.group(3).strip()[:120]}", segment, line, "dmesg")


_DRIVER_BOUND = re.compile(r"\b(nouveau|nvidia) [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d: ")  # dmesg: a driver bound a GPU
_LSMOD = re.compile(r"^\s*(nouveau|nvidia|nvidia_uvm|nvidia_drm|nvidia_modeset)\s+\d+\s+\d+\b")


def kernel_modules(segment: Segment) -> Iterator[Observation]:
    """The GPU kernel modules a paste shows loaded: `lsmod` rows and the kernel log lines of a driver bound to a GPU."""
    seen = set()
    for line in segment.lines:
        text = line.text
        if "nouveau" not in text and "nvidia" not in text:
            continue
        m = _DRIVER_BOUND.search(text) or _LSMOD.match(text)
        if m and m.group(1) not in seen:
            seen.add(m.group(1))
            yield observe("driver.kernel_modules", m.group(1), segment, line, "kernel log" if "[" in text else "lsmod")
            yield observe("platform.system", "Linux", segment, line, "kernel log")


def arch_list(segment: Segment) -> Iterator[Observation]:
    """The printed value of `torch.cuda.get_arch_list()`: the kernels the wheel carries, as torch said it."""
    for line in segment.lines:
        if "_" not in line.text or "[" not in line.text:
            continue
        m = _ARCH_LIST.match(line.text)
        if m:
            tokens = tuple(_ARCH_TOKEN.findall(m.group(1)))
            yield observe("torch.arch_flags", tokens, segment, line, "torch.cuda.get_arch_list()")


_WINDOWS_PATH = re.compile(r"\b[A-Za-z]:\\(?:[^\\\s]+\\)*(?:site-packages|Python\d*|Program Files)|"
                           r"^\s*(?:PS )?[A-Za-z]:\\[^<>|\n]*>\s*\S", re.I)
_FINDSTR = re.compile(r"\|\s*findstr\b", re.I)  # a pipe into findstr: only cmd.exe has it
_WSL = re.compile(r"microsoft-standard-WSL2|/usr/lib/wsl/lib|\bWSL ?2\b", re.I)
_DOCKER = re.compile(r"^\s*(?:\$\s*|sudo\s+)?(?:docker|podman)\s+(?:run|compose|exec)\b|^\s*FROM\s+\S*(?:nvidia|pytorch|cuda)\S*", re.I)
_LINUX_PATH = re.compile(r"(?:^|[\s\"'(])/(?:usr|home|opt|root|data|workspace|mnt|content)/\S*(?:site|dist)-packages/")
_MACHINE = re.compile(r"\b(x86_64|aarch64|AMD64|arm64)\b")
_VISIBLE = re.compile(r"(?:^|[\s;'\"(])(?:export\s+)?CUDA_VISIBLE_DEVICES=(['\"]?)([\w,-]*)\1(?=\s|$)")
# a cheap pre-test for _MACOS: every one of its alternatives holds one of these
_MAC_WORDS = re.compile(r"mac|Mac|MAC|Darwin|darwin|Apple|apple|arm64|/Users/|homebrew|dylib|osx| M[1-9]|M[1-9] ")
_MACOS = re.compile(r"\bmacOS[- ]\d+|Darwin Kernel|\barm64-arm-64bit\b|/opt/homebrew/|(?:^|[\s\"'(])/Users/[^/\s]+/|"
                    r"\bMacBook\b|\bApple M[1-9]\b|\b[Mm]ac\s*\(M[1-9]\w*\)|\bM[1-9] (?:Pro|Max|Ultra)\b|\b(?:on|with|have|has|using) an? M[1-9](?: (?:Pro|Max|Ultra))?\b|\bM[1-9] (?:Pro|Max|Ultra) [Cc]hip|\b[Mm]ac ?M[1-9]\b|\bM[1-9] [Mm]ac\b|"
                    r"\bApple [Ss]ilicon\b|\bmacosx_\d+_\d+_(?:arm64|x86_64|universal2)\b|\bosx-(?:arm64|64)\b|"
                    r"-apple-darwin\d*\b|\bMac ?(?:mini|Studio|Pro)\b|\biMac\b|\bMac OS X\b|"
                    r"\bmacOS (?:Sonoma|Ventura|Monterey|Big Sur|Sequoia|Tahoe)\b|\w\.dylib\b")
# a message naming the library for both systems ("libcudnn.so.5 or libcudnn.5.dylib") says nothing of the platform
# a program's advice naming a Mac as one choice: "use a Mac with Apple Silicon or a CUDA-compatible GPU"
_MAC_ADVICE = re.compile(r"\b(?:use|try|get|recommend(?:ed)?|needs?|requires?)\s+(?:an?\s+)?(?:Mac|Apple)\b[^.\n]{0,40}?"
                         r"\bor\b|\bor\s+(?:an?\s+)?(?:Mac|Apple)\b", re.I)
_BOTH_SYSTEMS = re.compile(r"\.so\b[\w.]*\s+or\s+\S+\.dylib\b")


_INTERPRETER = re.compile(r"(?:^|[\s\"'(=])(/[^\s\"']*?/(?:bin/python[\d.]*|python[\d.]*))(?=$|[\s\"')])")
_PATH_INSTALLERS = ((re.compile(r"/\.pixi/envs/"), "pixi", "a pixi environment (.pixi/envs/)"),
                    (re.compile(r"/pypoetry/(?:Cache/)?virtualenvs/"), "poetry", "Poetry's virtualenvs cache"),
                    (re.compile(r"/(?:ana|mini)conda\d*/|/(?:mini|mamba)forge\d*/|/micromamba/envs/|/opt/conda/"),
                     "conda", "a conda installation"))


def interpreter_paths(segment: Segment) -> Iterator[Observation]:
    """An interpreter path (`which python`, a traceback) inside a pixi, Poetry or conda environment."""
    for line in segment.lines:
        text = line.text
        if "python" not in text or "/" not in text:
            continue
        m = _INTERPRETER.search(text)
        if not m:
            continue
        path = m.group(1)
        for marker, installer, what in _PATH_INSTALLERS:
            if marker.search(path):
                yield observe("platform.installer", installer, segment, line, "an interpreter path")
                yield observe("platform.installer_evidence", f"{path[:200]} is in {what}", segment, line,
                              "an interpreter path")
                break


def platform_hints(segment: Segment) -> Iterator[Observation]:
    """The platform as paths and commands reveal it: Windows drive paths, WSL, macOS, a docker command line."""
    for line in segment.lines:
        text = line.text
        if ":\\" in text and _WINDOWS_PATH.search(text):
            yield observe("platform.system", "Windows", segment, line, "a Windows path")
        elif "findstr" in text and _FINDSTR.search(text):
            yield observe("platform.system", "Windows", segment, line, "a Windows command")
        elif ("wsl" in text or "WSL" in text) and _WSL.search(text):
            yield observe("platform.system", "Linux", segment, line, "WSL")
            yield observe("platform.wsl", 2, segment, line, "WSL")
        elif (_MAC_WORDS.search(text) and _MACOS.search(text) and not _BOTH_SYSTEMS.search(text)
              and not _MAC_ADVICE.search(text)):
            yield observe("platform.system", "Darwin", segment, line, "macOS")
        elif "-packages/" in text and _LINUX_PATH.search(text):
            yield observe("platform.system", "Linux", segment, line, "a Linux path")
        if ("x86_64" in text or "aarch64" in text or "AMD64" in text) and "platform" in text.lower():
            m = _MACHINE.search(text)
            if m:
                yield observe("platform.machine", m.group(1), segment, line, "platform")
        if "CUDA_VISIBLE_DEVICES=" in text:
            m = _VISIBLE.search(text)
            if m:
                yield observe("env.CUDA_VISIBLE_DEVICES", m.group(2), segment, line, "command line")
        if ("docker" in text or "podman" in text or "FROM" in text) and _DOCKER.match(text):
            yield observe("platform.container", "docker", segment, line, "docker")


_SLURM_LINE = re.compile(r"^\s*(?:#SBATCH\b|(?:\$\s*)?(?:srun|sbatch|salloc)\s)")
_SLURM_GPUS = re.compile(r"--gres[= ]\S*gpu|--gpus(?:-per-\w+)?[= ]|(?:^|\s)-G\s*\d|--gpus-per-node|--tres-per-\w+[= ]\S*gpu")
_SLURM_WORD = re.compile(r"\bslurm\b|\bSLURM_JOB_ID\b", re.I)


def batch_jobs(segment: Segment) -> Iterator[Observation]:
    """A Slurm job in the paste (#SBATCH lines, srun/sbatch/salloc commands, or the word) and whether it asks for GPUs."""
    for line in segment.lines:
        text = line.text
        if "SBATCH" in text or "srun" in text or "sbatch" in text or "salloc" in text:
            if _SLURM_LINE.match(text):
                yield observe("slurm_job", text.strip()[:200], segment, line, "slurm")
                if _SLURM_GPUS.search(text):
                    yield observe("slurm_gpus", text.strip()[:200], segment, line, "slurm")
                continue
        if ("slurm" in text.lower()) and _SLURM_WORD.search(text):
            yield observe("slurm_job", text.strip()[:200], segment, line, "slurm")


_JETSON = re.compile(r"\bJetson\b|\bJetPack\b|\bL4T\b|\bnvidia-l4t\b|\btegra\b|\bJetBot\b", re.I)  # JetBot: a Nano kit


# where a torch came from when it is not NVIDIA's JetPack build: conda-forge, PyPI, or the PyTorch index
_FOREIGN_TORCH = (
    (re.compile(r"\bconda-forge\b.*\b(?:py)?torch\b|\b(?:py)?torch\b.*\bconda-forge\b", re.I), "conda-forge"),
    (re.compile(r"\bdownload\.pytorch\.org\b|\bpytorch\.org\b.*\b(?:command|instructions|directions|selector)\b|"
                r"\b(?:command|instructions|directions|selector)\b.*\bpytorch(?:\.org)? (?:web ?page|website|site)\b",
                re.I), "the pytorch.org install command"),
    (re.compile(r"\bpip3?\s+install\s+(?:-U\s+|--upgrade\s+)?torch(?:[=\s\"'`,]|$)(?!.*(?:nvidia\.com|jetson|jp\d))", re.I),
     "pip from PyPI"),
    (re.compile(r"\b(?:conda|mamba)\s+install\b.*\bpytorch\b.*\s(?:-c|--channel)\s+pytorch\b", re.I),
     "the pytorch conda channel"),
)


def torch_sources(segment: Segment) -> Iterator[Observation]:
    """Where the paste says its torch came from, when that is not NVIDIA's JetPack build (judged on Jetsons)."""
    for line in segment.lines:
        text = line.text
        low = text.lower()
        if "torch" not in low or not ("conda-forge" in low or "pytorch" in low or "pip" in low):
            continue
        for pattern, source in _FOREIGN_TORCH:
            if pattern.search(text):
                yield observe("torch_source", source, segment, line, "prose")
                break


_JETSON_BOARD = re.compile(r"\bJetson\s+((?:AGX\s+|Orin\s+|Xavier\s+|Nano\s*|TX[12]\s*|NX\s*|Thor\s*)+)")


def jetson(segment: Segment) -> Iterator[Observation]:
    """An NVIDIA Jetson (Tegra) board: its torch must be built for JetPack, and it is Linux on aarch64."""
    for line in segment.lines:
        text = line.text
        low = text.lower()
        if ("jet" in low or "l4t" in low or "tegra" in low) and _JETSON.search(text):
            yield observe("jetson", text.strip()[:200], segment, line, "Jetson")
            yield observe("platform.machine", "aarch64", segment, line, "Jetson")
            yield observe("platform.system", "Linux", segment, line, "Jetson")
            board = _JETSON_BOARD.search(text)
            if board:  # the board is the GPU: its name gives the compute capability
                yield observe("gpus", (None, "NVIDIA Jetson " + " ".join(board.group(1).split())), segment, line, "Jetson")
            return


# Ultralytics' `yolo checks` table: "CUDA                None" (torch.version.cuda) beside "Install  pip", "OS  ..."
_YOLO_CUDA = re.compile(r"^\s*CUDA\s{2,}(None|\d{1,2}\.\d{1,2})\s*$")
_YOLO_ROWS = re.compile(r"^\s*(?:Install|Environment|RAM|OS)\s{2,}\S")
# the shell's words for a process killed by a signal, on the line after importing torch
_CRASH = re.compile(r"^\s*(Illegal instruction|Segmentation fault|Bus error)(?: \(core dumped\))?\s*$")
_IMPORT_TORCH = re.compile(r"(?:^\s*(?:>>>\s*)?import torch\b|python3?\s+-c\s+['\"]import torch\b)")


def yolo_checks(segment: Segment) -> Iterator[Observation]:
    """The CUDA row of Ultralytics' environment table: None is a torch built without CUDA."""
    lines = segment.lines
    if not any(_YOLO_ROWS.match(line.text) for line in lines[:40]):
        return
    for line in lines:
        m = _YOLO_CUDA.match(line.text) if line.text.lstrip().startswith("CUDA") else None
        if m:
            if m.group(1) == "None":
                yield observe("torch.cuda_compiled", False, segment, line, "yolo checks")
            else:
                yield observe("torch.cuda", m.group(1), segment, line, "yolo checks")
            return


def import_crashes(segment: Segment) -> Iterator[Observation]:
    """`import torch` answered by the shell's "Illegal instruction (core dumped)" or "Segmentation fault": torch is
    installed and its import kills the interpreter."""
    lines = segment.lines
    for i, line in enumerate(lines[:-1]):
        if "import torch" not in line.text or not _IMPORT_TORCH.search(line.text):
            continue
        after = next((later for later in lines[i + 1:i + 3] if later.text.strip()), None)
        m = _CRASH.match(after.text) if after is not None else None
        if m and after is not None:
            yield observe("torch.installed", True, segment, after, "python REPL")
            yield observe("torch.crashed", m.group(1).lower() + " on import torch", segment, after, "python REPL")
            return

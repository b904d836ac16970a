"""What each error message recognised in a paste means: its cause, how bad it is, and the fix."""

from __future__ import annotations

from typing import Dict

from gpudoctor.checks.support.cause import NOTE, Cause, E, W
from gpudoctor.checks.support.paste_running import RUNNING

CUDA_INDEX = "https://download.pytorch.org/whl/cu128"
REINSTALL = (f"pip install --force-reinstall torch torchvision --index-url {CUDA_INDEX}",)


CAUSES: Dict[str, Cause] = {
    "no-kernel-image": Cause(E, "the torch build has no kernels for this GPU's architecture (no kernel image)",
                             "Install a torch build whose arch list includes the GPU (Blackwell sm_120 needs a "
                             "CUDA 12.8+ build of torch 2.7 or newer; Kepler/Maxwell need an older torch).",
                             ('python -c "import torch; print(torch.__version__, torch.cuda.get_arch_list(), '
                              'torch.cuda.get_device_capability())"', *REINSTALL)),
    "sm-incompatible": Cause(E, "the GPU's architecture is not in the torch build's list of supported architectures",
                             "Install a torch build that supports the GPU (Blackwell sm_120 needs a CUDA 12.8+ build "
                             "of torch 2.7 or newer).", REINSTALL),
    "torchvision-cuda-mismatch": Cause(E, "torchvision was built for another CUDA than torch (they must come from one "
                                          "index and release)",
                                       "Reinstall torch and torchvision together from one CUDA index.", REINSTALL),
    "cudnn-version-mismatch": Cause(E, "torch loads another cuDNN than the one it was built with (cuDNN version "
                                       "incompatibility): a cuDNN earlier on the library path shadows its own",
                                    "Take the folder of the other cuDNN out of LD_LIBRARY_PATH (or PATH on Windows) so "
                                    "that torch loads the cuDNN of its own nvidia-cudnn wheel.",
                                    ("echo $LD_LIBRARY_PATH", "pip list | grep -i cudnn")),
    "ptx-toolchain": Cause(E, "the NVIDIA driver is older than the CUDA that compiled the PTX this GPU needs (the "
                              "provided PTX was compiled with an unsupported toolchain)",
                           "Update the NVIDIA driver to one that supports the torch build's CUDA, or install a build "
                           "with native kernels (sm_XY) for this GPU so that no PTX has to be compiled.",
                           ("nvidia-smi", 'python -c "import torch; print(torch.__version__, torch.version.cuda, '
                            'torch.cuda.get_arch_list())"')),
    "container-without-driver": Cause(E, "the container reaches no NVIDIA driver (its image says 'The NVIDIA Driver "
                                         "was not detected'): it was started without the NVIDIA runtime",
                                      "Start it with the GPUs: docker run --gpus all (Docker 19.03+ with the NVIDIA "
                                      "Container Toolkit), or nvidia-docker run / --runtime=nvidia on older setups; the "
                                      "host's nvidia-smi must work first.",
                                      ("nvidia-smi", "docker run --rm --gpus all ubuntu nvidia-smi -L")),
    "cufft-internal-error": Cause(W, "cuFFT failed inside torch (CUFFT_INTERNAL_ERROR): the cuFFT of torch builds for "
                                     "CUDA 11.7 and older does not run on Ada and Hopper GPUs (RTX 40 series, L4, H100)",
                                  "Install a torch build for CUDA 11.8 or newer (cu118+), whose cuFFT supports these GPUs; "
                                  "on other GPUs, report the failing call with torch.__version__.",
                                  ('python -c "import torch; print(torch.__version__, torch.version.cuda, '
                                   'torch.cuda.get_device_name(0))"',
                                   "pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/cu118")),
    "error-802": Cause(E, "CUDA error 802 (system not yet initialized) on the GPU host: on NVSwitch systems (HGX and DGX "
                          "with A100, H100 or H200 SXM GPUs) the fabric manager is not running or not of the driver's "
                          "version",
                       "On the host that runs the GPUs (not the client that submits the job), start "
                       "nvidia-fabricmanager of exactly the driver's version and have it start at boot.",
                       ("systemctl status nvidia-fabricmanager", "sudo systemctl enable --now nvidia-fabricmanager",
                        "nvidia-smi -q | grep -i -A2 fabric")),
    "uvm-not-loaded": Cause(E, "the nvidia_uvm kernel module is not loaded: CUDA needs it, nvidia-smi does not",
                            "Load it on the host (a container cannot), and have it load at boot; nvidia-modprobe "
                            "also creates /dev/nvidia-uvm. Start the container again afterwards.",
                            ("sudo modprobe nvidia-uvm", "sudo nvidia-modprobe -u -c=0", "ls -l /dev/nvidia-uvm")),
    "kernel-module-missing": Cause(E, "the NVIDIA kernel module is not built or not loaded for the running kernel (on a "
                                      "new install most often Secure Boot refusing it, or the module not built for "
                                      "this kernel)",
                                   "Check whether Secure Boot is on and the module exists for the running kernel; "
                                   "enroll the driver's key or turn Secure Boot off, or rebuild the module (akmods "
                                   "on Fedora, dkms elsewhere), then reboot.",
                                   ("mokutil --sb-state", "modinfo nvidia", "sudo dmesg | grep -i -E 'nvidia|secure'")),
    "container-toolkit-timeout": Cause(E, "the NVIDIA Container Toolkit timed out asking the driver about the GPUs "
                                          "(terminating driver service (forced)): most often GPUs in exclusive-process "
                                          "mode held by other processes, or a driver slow to wake without persistence "
                                          "mode",
                                       "Check the GPUs' compute mode and who holds them; set the default compute mode "
                                       "or stop the holders, and keep the driver loaded with the persistence daemon.",
                                       ("nvidia-smi -q -d COMPUTE", "nvidia-smi", "sudo systemctl enable --now "
                                        "nvidia-persistenced")),
    "docker-gpus-flag": Cause(E, "the docker client is older than 19.03 and has no --gpus option (unknown flag: --gpus)",
                              "Update the docker client (docker-ce-cli 19.03 or newer) to match the engine, or use the "
                              "NVIDIA runtime the old way: docker run --runtime=nvidia.",
                              ("docker version", "sudo apt-get install --only-upgrade docker-ce-cli")),
    "extension-newer-toolkit": Cause(E, "a compiled CUDA extension was built with a newer CUDA toolkit than the CUDA "
                                        "runtime (libcudart) it runs with: a runtime function it calls is missing",
                                     "Build the extension with the toolkit matching torch.version.cuda (CUDA_HOME "
                                     "pointing at it) and clear its build cache (~/.cache/torch_extensions, or the "
                                     "library's own JIT cache), or install a torch built for the newer CUDA.",
                                     ('python -c "import torch; from torch.utils.cpp_extension import CUDA_HOME; '
                                      'print(torch.version.cuda, CUDA_HOME)"', "nvcc --version")),
    "extension-toolkit-mismatch": Cause(E, "building a CUDA extension: the CUDA toolkit (nvcc) is another CUDA major than "
                                           "the one torch was built with",
                                        "Install the CUDA toolkit of torch's CUDA and point CUDA_HOME at it, or install "
                                        "a torch built for the toolkit's CUDA, then build again.",
                                        ("nvcc --version", 'python -c "import torch; print(torch.version.cuda)"')),
    "secure-boot": Cause(E, "Secure Boot refuses the NVIDIA kernel module (Key was rejected by service), so the driver "
                            "never loads",
                         "Enroll the driver's signing key (the installer offers it; reboot and confirm it in the blue "
                         "MOK manager screen), install the distribution's signed driver packages, or turn Secure Boot "
                         "off in the firmware settings.",
                         ("mokutil --sb-state", "sudo update-secureboot-policy --enroll-key", "sudo reboot")),
    "windows-paging-file": Cause(E, "Windows' paging file is too small to load torch's CUDA DLLs ([WinError 1455])",
                                 "Let Windows manage the paging file size, or set it larger (System Properties > "
                                 "Advanced > Performance > Virtual memory), on a drive with free space; then restart. "
                                 "Running fewer programs that load CUDA at once also helps.",
                                 ("systempropertiesadvanced",)),
    "gpu-too-old": Cause(E, "the GPU is too old for this build: its compute capability is below the oldest the build "
                            "has kernels for",
                         "Install the newest torch release whose kernels still cover this GPU's compute capability "
                         "(gpudoctor check names it from the arch lists), or use a newer GPU.",
                         ('python -c "import torch; print(torch.__version__, torch.cuda.get_arch_list(), '
                          'torch.cuda.get_device_capability())"', "gpudoctor check")),
    "math-library-init-failed": Cause(W, "cuBLAS or cuDNN could not start or run on the GPU (CUBLAS/CUDNN_STATUS_NOT_INITIALIZED, "
                                         "INTERNAL_ERROR)",
                                      "Most often the GPU memory is already full (this process or another one): check "
                                      "nvidia-smi and lower the memory use. If memory is free, the library does not "
                                      "support this GPU or comes from another CUDA: compare the GPU with the torch "
                                      "build's arch list and reinstall torch with its own nvidia-* wheels.",
                                      ("nvidia-smi", 'python -c "import torch; print(torch.__version__, '
                                       'torch.cuda.get_arch_list(), torch.cuda.mem_get_info())"')),
    "driver-insufficient": Cause(E, "the NVIDIA driver is older than the CUDA runtime that torch (or the container "
                                    "image) was built with",
                                 "Update the NVIDIA driver, or install a torch build (or use an image) made for an older "
                                 "CUDA that the driver supports (nvidia-smi's 'CUDA Version' is the newest it supports).",
                                 ("nvidia-smi", "pip install torch --index-url https://download.pytorch.org/whl/cu118")),
    "driver-too-old": Cause(E, "the NVIDIA driver is too old for this torch build's CUDA",
                            "Update the NVIDIA driver, or install a torch built for an older CUDA.",
                            ("nvidia-smi", "pip install torch --index-url https://download.pytorch.org/whl/cu118")),
    "not-compiled-with-cuda": Cause(E, "torch is a CPU-only build (Torch not compiled with CUDA enabled)",
                                    "Replace it with a CUDA build from the PyTorch index (on macOS there is no CUDA: "
                                    "use the 'mps' device instead).", ("pip uninstall -y torch", *REINSTALL)),
    "no-driver": Cause(E, "no NVIDIA driver is loaded: the program finds none on this machine",
                       "Install the NVIDIA driver on the machine (in a container: on the host, and start the container "
                       "with GPU access); on a Mac there is no CUDA at all.", ("nvidia-smi",)),
    "smi-no-driver": Cause(W, "nvidia-smi is missing or reaches no driver: no NVIDIA driver is installed and loaded "
                              "(or the container was started without GPUs)",
                           "Install the NVIDIA driver for the GPU (in a container: on the host, and start the container "
                           "with --gpus all); nvidia-smi comes with the driver. First check that the machine has an "
                           "NVIDIA GPU at all. Older Windows drivers put nvidia-smi.exe in C:\\Program Files\\NVIDIA "
                           "Corporation\\NVSMI, which is not on PATH: look there before reinstalling.",
                           ("lspci | grep -i nvidia",)),
    "hip-no-device": Cause(E, "HIP (ROCm) finds no GPU it can use (hipErrorNoDevice, hipErrorInvalidDevice)",
                           "ROCm sees no GPU it supports: check that rocminfo lists the GPU's gfx target and that ROCm "
                           "supports it, that the user is in the render and video groups, and that HIP_VISIBLE_DEVICES "
                           "is unset; under WSL only AMD's WSL runtime reaches the GPU, and in a VM the GPU must be one "
                           "ROCm supports passed through, not a virtual function.",
                           ("rocminfo | grep -i gfx", "groups", "echo $HIP_VISIBLE_DEVICES")),
    "no-device": Cause(E, "CUDA sees no GPU in this process",
                       "Check that CUDA_VISIBLE_DEVICES is unset or names a real GPU, and that nvidia-smi lists the GPU "
                       "(inside a container: start it with --gpus all).", ("nvidia-smi -L", "echo $CUDA_VISIBLE_DEVICES")),
    "error-803": Cause(E, "CUDA error 803: the driver's user-space libraries and its kernel module do not match",
                       "Reboot after a driver update; in a container, remove the CUDA compat libraries from the "
                       "library path so the host driver's libcuda is used.", ("cat /proc/driver/nvidia/version", "nvidia-smi")),
    "error-804": Cause(E, "CUDA error 804: forward-compatibility libraries are used on a GPU that does not support them",
                       "Do not put /usr/local/cuda/compat on the library path on GeForce/RTX cards (data-centre GPUs "
                       "only); use an image whose CUDA the host driver supports, or update the host driver.",
                       ("echo $LD_LIBRARY_PATH", "nvidia-smi"),
                       ("https://docs.nvidia.com/deploy/cuda-compatibility/",)),
    "nvml-unknown-error": Cause(E, "Failed to initialize NVML: Unknown Error: the container lost its GPU devices",
                                "systemd reloaded the container's device cgroup rules; restart the container, and for "
                                "good set the cgroup driver to cgroupfs in /etc/docker/daemon.json or pass the "
                                "/dev/nvidia* devices explicitly.",
                                ("docker restart CONTAINER",),
                                ("https://github.com/NVIDIA/nvidia-container-toolkit/issues/48",)),
    "docker-no-gpu-driver": Cause(E, "Docker has no GPU runtime (could not select device driver with capabilities [[gpu]])",
                                  "Install the NVIDIA Container Toolkit and register it with Docker, then restart Docker.",
                                  ("sudo apt-get install -y nvidia-container-toolkit",
                                   "sudo nvidia-ctk runtime configure --runtime=docker",
                                   "sudo systemctl restart docker"),
                                  ("https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/install-guide.html",)),
    "container-toolkit-no-driver": Cause(E, "the NVIDIA Container Toolkit cannot load the host's driver "
                                            "(nvidia-container-cli: libnvidia-ml.so.1 not found)",
                                         "Install the NVIDIA driver on the host (nvidia-smi must work there first); on "
                                         "Docker Desktop/WSL use the Windows driver; then restart Docker.",
                                         ("nvidia-smi", "nvidia-container-cli info", "sudo systemctl restart docker"),
                                         ("https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/"
                                          "troubleshooting.html",)),
    "invalid-device-ordinal": Cause(W, "the code asks for a GPU index this process cannot see (invalid device ordinal)",
                                    "Use an index below torch.cuda.device_count(); CUDA_VISIBLE_DEVICES renumbers the "
                                    "visible GPUs from 0.",
                                    ('python -c "import torch; print(torch.cuda.device_count())"', "echo $CUDA_VISIBLE_DEVICES")),
    "torchvision-nms": Cause(E, "torchvision was built for a different torch: its C++ operators (torchvision::nms) do not load",
                             "Install the torchvision release that pairs with the installed torch, from the same index.",
                             REINSTALL),
    "shadowed-cuda-libs": Cause(E, "a CUDA library found first on the loader's path (a system CUDA on LD_LIBRARY_PATH, "
                                   "or the toolkit's stub libcuda) shadows the one the program needs",
                                "Remove the system CUDA folders, and any lib64/stubs folder, from LD_LIBRARY_PATH for "
                                "Python (torch's pip wheels bring their own CUDA libraries; libcuda must be the "
                                "driver's).", ("echo $LD_LIBRARY_PATH", "unset LD_LIBRARY_PATH"),
                                ("https://github.com/pytorch/pytorch/issues/119989",)),
    "cudnn-missing": Cause(E, "a cuDNN library cannot be loaded: it is not on the library search path, or only "
                              "another major version is",
                           "For torch, reinstall it so that its nvidia-cudnn wheel is installed and matches; do not mix "
                           "a conda/system cuDNN with pip wheels. For a program that loads cuDNN itself (ctranslate2, "
                           "onnxruntime, TensorFlow), install the cuDNN major it was built for and put its folder on "
                           "PATH (Windows) or LD_LIBRARY_PATH (Linux); the nvidia-cudnn-cuNN wheel of that major works.",
                           ("pip list | grep -i nvidia", *REINSTALL)),
    "nouveau-in-use": Cause(E, "the open-source nouveau driver is loaded and holds the GPU: the NVIDIA driver's installer "
                               "refuses, and CUDA cannot use the GPU until the NVIDIA driver replaces it",
                            "Blacklist nouveau, rebuild the initramfs and reboot, then install the NVIDIA driver (the "
                            "distribution's packages do both).",
                            ("printf 'blacklist nouveau\\noptions nouveau modeset=0\\n' | sudo tee "
                             "/etc/modprobe.d/blacklist-nouveau.conf", "sudo update-initramfs -u", "sudo reboot")),
    "gpu-too-old-for-triton": Cause(W, "this GPU is too old for Triton, which torch.compile and libraries built on it "
                                       "(unsloth, vLLM's kernels, ...) need: compute capability 7.0 or newer; torch "
                                       "itself works on it",
                                    "Run without torch.compile where the program allows it (its option, or "
                                    "TORCHDYNAMO_DISABLE=1 in the environment); a library that needs Triton needs a GPU "
                                    "of compute capability 7.0 or newer.",
                                    ('python -c "import torch; print(torch.cuda.get_device_name(), '
                                     'torch.cuda.get_device_capability())"',)),
    "triton-misreads-cuda": Cause(W, "the installed Triton release does not know this CUDA version: it reads 12.x as "
                                     "older than 10",
                                  "Install a Triton release made for this CUDA and torch (on Windows, the triton-windows "
                                  "release that matches torch).", ("pip show triton triton-windows",)),
    "cuda-malloc-unsupported": Cause(W, "the GPU or its driver does not support cudaMallocAsync, which ComfyUI turns on "
                                        "by default",
                                     "Start ComfyUI with --disable-cuda-malloc (or remove backend:cudaMallocAsync from "
                                     "PYTORCH_CUDA_ALLOC_CONF)."),
    "nvcc-host-compiler": Cause(E, "nvcc refuses the host compiler: the gcc or Visual Studio is newer than this CUDA "
                                   "toolkit supports",
                                "Build with a host compiler this CUDA toolkit supports (for gcc: install an older one and "
                                "point the build at it with CC and CXX, e.g. CC=gcc-12 CXX=g++-12), or install a newer "
                                "CUDA toolkit that supports this one.", ("nvcc --version", "gcc --version")),
    "hip-no-kernel": Cause(E, "the ROCm build of torch (or an extension) has no kernels for this AMD GPU's gfx target",
                           "Use a ROCm build whose arch list names the GPU's gfx target (torch.cuda.get_arch_list(), "
                           "rocminfo). For an RDNA 2 or 3 card the build lacks (gfx1031, gfx1032, gfx1035, gfx1103, "
                           "...), the common workaround, unsupported by AMD, is to present it as the nearest supported "
                           "target: HSA_OVERRIDE_GFX_VERSION=10.3.0 for RDNA 2, 11.0.0 for RDNA 3.",
                           ('python -c "import torch; print(torch.__version__, torch.version.hip, '
                            'torch.cuda.get_arch_list())"', "rocminfo | grep -i gfx")),
    "nccl-not-built": Cause(W, "the program starts torch.distributed's nccl backend, but this torch has no NCCL: builds "
                               "for Windows and macOS have none, nor do CPU-only builds",
                            "Use the gloo backend where there is no NCCL (the program's option for the distributed "
                            "backend, or init_process_group(backend=\"gloo\")); NCCL needs Linux with a CUDA build "
                            "of torch.",
                            ('python -c "import torch, torch.distributed as d; print(torch.__version__, '
                             'd.is_nccl_available(), d.is_gloo_available())"',)),
    "library-cpu-build": Cause(E, "a library with CUDA kernels of its own is installed as its CPU-only package, so "
                                  "it runs on the CPU whatever torch does",
                               "Replace it with the library's CUDA package for the CUDA version torch uses: "
                               "onnxruntime-gpu (uninstall onnxruntime first: both provide the same module), "
                               "jax[cuda12], DGL's wheel from its CUDA index (data.dgl.ai/wheels), paddlepaddle-gpu.",
                               ("pip list", 'python -c "import torch; print(torch.__version__, torch.version.cuda)"')),
    "cuda-lib-missing": Cause(E, "a CUDA library that torch or the program loads cannot be found",
                              "For torch, reinstall it with its nvidia-* wheels. For a program that loads the CUDA "
                              "libraries itself (TensorFlow, onnxruntime, ctranslate2), install the CUDA release "
                              "whose library it names (cudart64_100.dll is CUDA 10.0's, libcudart.so.11.0 CUDA 11's) "
                              "and add its folder to PATH (Windows) or LD_LIBRARY_PATH (Linux).",
                              ("pip list | grep -i nvidia", *REINSTALL)),
    "libcuda-missing": Cause(E, "the driver library libcuda.so is not on the loader's path",
                             "On WSL2 the driver comes from Windows and lives in /usr/lib/wsl/lib (do not install a "
                             "Linux driver inside WSL); in a container start it with --gpus all; otherwise install "
                             "the NVIDIA driver.", ("ls /usr/lib/wsl/lib", "ldconfig -p | grep libcuda")),
    "windows-dll": Cause(E, "a DLL that torch loads failed to load on Windows",
                         "Install the latest Microsoft Visual C++ Redistributable (x64), then reinstall torch in a "
                         "python.org or conda Python (not the Microsoft Store one).",
                         ("winget install Microsoft.VCRedist.2015+.x64", *REINSTALL)),
    "device-busy": Cause(W, "the GPU is busy or unavailable (exclusive compute mode, or held by another process)",
                         "Set the compute mode to Default or stop the process holding the GPU.",
                         ("nvidia-smi -q -d COMPUTE", "sudo nvidia-smi -c DEFAULT")),
    "nvml-mismatch": Cause(E, "the NVIDIA user-space library (NVML) and the loaded kernel module are of different driver "
                              "versions",
                           "Reboot, so that the kernel module of the installed driver is the one loaded; if it stays, "
                           "two driver packages are installed (the distribution's and NVIDIA's, or a toolkit package "
                           "that pulled one in): keep one. In a container, the mismatch is the host's.",
                           ("cat /proc/driver/nvidia/version", "dpkg -l | grep -i -E 'nvidia|libnvidia'")),
    "uncorrectable-ecc": Cause(E, "the GPU's memory reported an uncorrectable ECC error: a hardware fault, not the "
                                  "install",
                               "Look at the GPU's ECC counters and retired pages; reset the GPU (or reboot) so that "
                               "pending page retirements take effect. An error that comes back means the GPU needs "
                               "service; until then keep jobs off it (CUDA_VISIBLE_DEVICES).",
                               ("nvidia-smi -q -d ECC,PAGE_RETIREMENT", "sudo nvidia-smi -r -i 0"),
                               ("https://docs.nvidia.com/deploy/dynamic-page-retirement/",)),
    "gpu-fell-off-the-bus": Cause(E, "the GPU stopped responding to the driver (fell off the bus / failed to initialise)",
                                  "A hardware-level fault: check power connectors and the PSU, temperatures and the "
                                  "PCIe seating, update the system BIOS and the driver; undo PCIe or clock tweaks.",
                                  ("nvidia-smi -q -d PERFORMANCE,TEMPERATURE", "sudo dmesg | grep -i nvrm"),
                                  ("https://docs.nvidia.com/deploy/xid-errors/",)),
    "flash-attn-needs-ampere": Cause(E, "flash-attn refuses this GPU: its kernels need Ampere (sm_80) or newer "
                                        "(the torch install itself is fine)",
                                     "Turn flash attention off for this GPU (transformers: attn_implementation=\"sdpa\"; "
                                     "vLLM picks another backend on pre-Ampere GPUs, or set VLLM_ATTENTION_BACKEND=XFORMERS), "
                                     "or run on an Ampere or newer GPU.",
                                     ('python -c "import torch; print(torch.cuda.get_device_capability())"',),
                                     ("https://github.com/Dao-AILab/flash-attention#installation-and-features",)),
    "torchaudio-abi": Cause(E, "torchaudio was built for another torch release or CUDA than the installed torch",
                            "Install the torchaudio release made for the installed torch, from the same index.",
                            ("pip list | grep -i torch", *REINSTALL)),
    "torch-files-mixed": Cause(E, "torch's own libraries do not match each other (undefined symbol): files of two torch "
                                  "versions are mixed in one install",
                               "Uninstall torch until pip finds none left (an interrupted upgrade or two installs in "
                               "one folder leave files behind), then install it once.",
                               ("pip uninstall -y torch", "pip uninstall -y torch", *REINSTALL)),
    "extension-abi": Cause(E, "a compiled extension was built for another torch or CUDA than the installed ones",
                           "Reinstall the extension built for the installed torch version and CUDA (for mmcv, the "
                           "mmcv wheel index of that torch/CUDA pair), or rebuild it from source against this torch.",
                           ("pip list | grep -i -E 'torch|mmcv|apex|detectron2|xformers|flash'",)),
    "flash-attn-abi": Cause(E, "flash-attn was built against a different torch than the installed one (undefined symbol)",
                            "Reinstall flash-attn for this exact torch (a wheel matching torch, CUDA and the C++ ABI, "
                            "or a build from source).",
                            ("pip uninstall -y flash-attn", "pip install flash-attn --no-build-isolation")),
    "xformers-mismatch": Cause(W, "xformers was built for a different torch/CUDA than the installed one; its "
                                  "GPU kernels are disabled",
                               "Install the xformers release built for the installed torch from the same index, or "
                               "uninstall xformers (torch's own attention is used then).",
                               ("pip uninstall -y xformers", "pip install xformers --index-url "
                                "https://download.pytorch.org/whl/cu121")),
    "incompatible-architecture": Cause(E, "a library torch loads is built for another CPU architecture than the Python "
                                          "process (mach-o file, but is an incompatible architecture)",
                                       "Use one architecture throughout: on Apple silicon a native arm64 Python (not one "
                                       "under Rosetta), with torch installed again in it, without pip's cache.",
                                       ("arch", 'python -c "import platform; print(platform.machine())"',
                                        "python -m pip install --force-reinstall --no-cache-dir torch")),
    "bitsandbytes-without-gpu": Cause(W, "bitsandbytes runs without its GPU kernels (compiled without GPU support, or no "
                                         "CUDA runtime found)",
                                      "Install a bitsandbytes release that supports this torch's CUDA and this platform "
                                      "(0.43+ ships CUDA builds for Linux and Windows); torch itself may be fine.",
                                      ("python -m bitsandbytes", "pip install -U bitsandbytes")),
    "cuda-home-unset": Cause(W, "a CUDA extension is being compiled and no CUDA toolkit is found (CUDA_HOME is not set)",
                             "Install the CUDA toolkit matching torch.version.cuda (or a prebuilt wheel of the "
                             "extension) and set CUDA_HOME to it; running torch itself does not need it.",
                             ('python -c "import torch; print(torch.version.cuda)"', "export CUDA_HOME=/usr/local/cuda")),
    "cuda-unavailable": Cause(W, "torch cannot use a GPU in this environment, and the paste does not show why",
                              "A framework reported that CUDA is unavailable; the cause lies below it (a CPU-only "
                              "torch, no driver, no GPU visible). Run the commands below and paste their output.",
                              ('python -c "import torch; print(torch.__version__, torch.version.cuda, '
                               'torch.cuda.is_available())"', "nvidia-smi")),
    "gpu-unused-unexplained": Cause(W, "the report says the GPU is not found or not used, and no error message in "
                                       "the paste says why",
                                    "The paste shows the symptom, not its cause. Run the commands below in the "
                                    "environment that fails and paste their output: which torch build is installed, "
                                    "whether it sees the GPU, and the driver (or run gpudoctor facts -o facts.json "
                                    "there and paste the file).",
                                    ('python -c "import torch; print(torch.__version__, torch.version.cuda, '
                                     'torch.cuda.is_available())"', "nvidia-smi")),
    "torch-version-not-found": Cause(W, "pip cannot find the requested torch build for this Python and package index",
                                     "'+cuXXX' builds are only on download.pytorch.org (use --index-url "
                                     "https://download.pytorch.org/whl/cuXXX), each torch release supports a range of "
                                     "Python versions, and old pins may have been removed: pick a torch release that "
                                     "exists for this Python.",
                                     ("python --version", "pip index versions torch --index-url "
                                      "https://download.pytorch.org/whl/cu121")),
    **RUNNING,
}

# Messages that mean something else on a machine whose GPU is AMD: what to run there is ROCm's, not nvidia-smi.
ON_AMD: Dict[str, Cause] = {
    "cuda-unavailable": Cause(W, "torch cannot use this machine's AMD GPU, and the paste does not show why",
                              "On an AMD GPU torch needs a ROCm build (torch.version.hip set), on Linux, with a GPU "
                              "that ROCm supports and a user in the render and video groups; a CUDA or CPU build "
                              "never uses it. Run the commands below and paste their output.",
                              ('python -c "import torch; print(torch.__version__, torch.version.hip, '
                               'torch.cuda.is_available())"', "rocminfo", "groups"),
                              ("https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/3rd-party/"
                               "pytorch-install.html",)),
    # ROCm builds of torch report a placeholder CUDA capability for AMD GPUs; older ones warned it was too old
    "gpu-too-old": Cause(NOTE, "torch's 'too old' warning names an AMD GPU: a ROCm build reports a placeholder CUDA "
                               "capability for it, so the warning says nothing of the GPU",
                         "Nothing to fix for the warning; whether the ROCm build uses the GPU is what "
                         "torch.cuda.is_available() and rocminfo say.",
                         ('python -c "import torch; print(torch.__version__, torch.version.hip, '
                          'torch.cuda.is_available())"', "rocminfo")),
}

# A recognised message -> the code of the structural finding that judges the same root cause from the facts.
# The paste finding declares that code as its ``cause``, so the report counts the two as one problem, led by the
# structural finding (it states observed versus required) with the pasted message as its evidence.
SHARED_CAUSE: Dict[str, str] = {
    "driver-too-old": "driver.too-old-for-torch",
    "driver-insufficient": "driver.too-old-for-torch",
    "no-kernel-image": "gpu.arch-too-new",
    "nvrtc-unknown-arch": "gpu.arch-too-new",
    "uncorrectable-ecc": "gpu.ecc",
    "nvml-mismatch": "driver.nvml-mismatch",
    "gpu-too-old": "gpu.arch-too-old",
    "ptx-toolchain": "driver.too-old-for-torch",
    "kernel-module-missing": "driver.not-loaded",
    "nouveau-in-use": "driver.nouveau",
    "uvm-not-loaded": "driver.uvm",
    "error-802": "driver.fabric-manager",
    "cudnn-cnn-infer-warning": "libs.missing",  # a library torch asks for is not there
    "cufft-internal-error": "gpu.arch-too-new",
    "container-without-driver": "platform.container",
    "docker-gpus-flag": "platform.container",
    "container-toolkit-timeout": "gpu.exclusive-mode",
    "extension-toolkit-mismatch": "toolkit.mismatch",
    "extension-newer-toolkit": "toolkit.mismatch",
    "cudnn-version-mismatch": "libs.shadowed",
    "sm-incompatible": "gpu.arch-too-new",
    "not-compiled-with-cuda": "torch.cpu-build-on-gpu",
    "cpu-build": "torch.cpu-build-on-gpu",
    "torchvision-nms": "torchvision.import-failed",
    "torchvision-cuda-mismatch": "torchvision.cuda-mismatch",
    "no-device": "devices.visible",
    "cudnn-missing": "torch.import-failed",
    "cuda-lib-missing": "torch.import-failed",
    "shadowed-cuda-libs": "torch.import-failed",
    "windows-dll": "torch.import-failed",
    "libcuda-missing": "platform.wsl",
    "colab-no-gpu": "platform.no-nvidia-gpu",  # the runtime that ran the notebook has no NVIDIA GPU
    "vm-no-gpu": "platform.no-nvidia-gpu",  # the guest has no NVIDIA GPU
    "gpu-check-at-build": "platform.container",
    "libstdcxx-too-old": "torch.import-failed",
    "error-804": "platform.container",
    "error-803": "driver.nvml-mismatch",
    "xformers-mismatch": "packages.kernel-pin-mismatch",
    "incompatible-architecture": "platform.machine",
    "torchaudio-abi": "packages.torchaudio-mismatch",
    "extension-abi": "packages.kernel-pin-mismatch",
    "torch-files-mixed": "torch.import-failed",
    "two-environments": "packages.duplicate-torch",
    "cuda-unavailable": "torch.cuda-unavailable",
}

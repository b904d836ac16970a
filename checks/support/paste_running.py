"""What the messages of programs that got past the install mean: builds of extensions, run-time libraries and driver
states they meet, multi-GPU communication, and the messages only a working CUDA stack prints (out of memory, kernel
bugs, settings)."""

from __future__ import annotations

from typing import Dict

from gpudoctor.checks.support.cause import NOTE, Cause, E, W

RUNNING: Dict[str, Cause] = {
    "out-of-memory": Cause(NOTE, "the CUDA environment works: the GPU ran out of memory",
                           "Not an installation problem: reduce the batch size, sequence length or model size, use "
                           "mixed precision, or free memory held by other processes (nvidia-smi lists them).",
                           ("nvidia-smi",)),
    "device-side-assert": Cause(NOTE, "the CUDA environment works: a kernel assertion failed in the code",
                                "Not an installation problem: run with CUDA_LAUNCH_BLOCKING=1 to find the failing "
                                "operation (usually an index or label out of range).", ("CUDA_LAUNCH_BLOCKING=1 python train.py",)),
    "extension-build-without-cuda": Cause(W, "a CUDA extension was built without its CUDA kernels, or its setup "
                                             "script refuses to build without CUDA: the build found no CUDA toolkit "
                                             "(CUDA_HOME) or no GPU through torch",
                                          "Extensions with their own CUDA code (detectron2, maskrcnn-benchmark, mmcv's "
                                          "ops, Deformable-DETR's ops and the projects that copy them) compile it only "
                                          "when CUDA_HOME points at a CUDA toolkit with nvcc and torch sees a GPU, or "
                                          "FORCE_CUDA=1 is set (a docker build sees no GPU). \"Not compiled with GPU "
                                          "support\" means the installed build has no CUDA kernels. Install the toolkit "
                                          "matching torch.version.cuda (conda's cudatoolkit package has no nvcc), delete "
                                          "the extension's old build folder and build it again.",
                                          ('python -c "import torch; from torch.utils.cpp_extension import CUDA_HOME; '
                                           'print(torch.version.cuda, torch.cuda.is_available(), CUDA_HOME)"',
                                           "nvcc --version",
                                           "FORCE_CUDA=1 python -m pip install --no-build-isolation --no-cache-dir .")),
    "error-999": Cause(E, "CUDA failed with 'unknown error' (cudaErrorUnknown: 999, or 30 before CUDA 10.1)",
                       "The driver is in a bad state. Under WSL: update the Windows NVIDIA driver and WSL (wsl "
                       "--update), then restart WSL (wsl --shutdown). On Linux: reload nvidia_uvm (common after "
                       "suspend) or reboot.", ("wsl --update", "wsl --shutdown", "sudo modprobe -r nvidia_uvm && "
                                                                               "sudo modprobe nvidia_uvm")),
    "libstdcxx-too-old": Cause(E, "the C++ runtime (libstdc++) the loader found is older than torch needs "
                                  "(GLIBCXX_x.y.z not found)",
                               "An older libstdc++ is found first, usually the conda environment's own: update it in "
                               "the environment (conda install -c conda-forge libstdcxx-ng), or make the newer system "
                               "one load first.", ("strings \"$CONDA_PREFIX/lib/libstdc++.so.6\" | grep GLIBCXX_3.4.3",
                                                  "conda install -c conda-forge libstdcxx-ng")),
    "nvcc-unsupported-arch": Cause(W, "building a CUDA extension: the CUDA toolkit (nvcc) is too old for the GPU "
                                      "architecture it was asked to compile for",
                                   "Use a CUDA toolkit new enough for the GPU (sm_89 and sm_90 need CUDA 11.8, "
                                   "sm_100 and sm_120 12.8) and of torch's CUDA major, or limit the build to "
                                   "architectures this nvcc knows with TORCH_CUDA_ARCH_LIST (e.g. \"8.6\").",
                                   ("nvcc --version", 'python -c "import torch; print(torch.version.cuda, '
                                    'torch.cuda.get_device_capability())"')),
    "nvrtc-unknown-arch": Cause(E, "a compiler the program runs (NVRTC, or Triton's ptxas) is of a CUDA that does not "
                                   "know this GPU's architecture: that CUDA predates the GPU",
                                "Use a build of a CUDA new enough for the GPU (Ampere sm_86 needs CUDA 11.1, Ada sm_89 "
                                "and Hopper sm_90 CUDA 11.8, Blackwell CUDA 12.8): for torch a newer CUDA build (its "
                                "shipped kernels may run, but what it compiles at run time cannot), for a container a "
                                "newer image.",
                                ('python -c "import torch; print(torch.__version__, torch.version.cuda, '
                                 'torch.cuda.get_device_capability())"',)),
    "illegal-memory-access": Cause(NOTE, "the CUDA environment works: a kernel accessed memory it should not",
                                   "Usually a bug in the program or one of its libraries (an index out of range, a "
                                   "wrong shape); run with CUDA_LAUNCH_BLOCKING=1 to find the kernel. If every CUDA "
                                   "program fails this way, look for Xid errors in the kernel log (hardware).",
                                   ("CUDA_LAUNCH_BLOCKING=1 python train.py", "sudo dmesg | grep -i xid")),
    "float16-not-efficient": Cause(NOTE, "the CUDA environment works: this GPU has no fast float16 (GPUs before "
                                         "Volta, such as the GTX 10 series), which the program asked for",
                                   "Not an installation problem: ask for another compute type (faster-whisper and "
                                   "CTranslate2: compute_type=\"int8\" or \"float32\").", ()),
    "cudnn-plan-declined": Cause(NOTE, "the CUDA environment works: cuDNN declined one convolution plan and torch used "
                                       "another ('Plan failed with a cudnnException' is a warning)",
                                 "Not an installation problem: the warning is harmless (torch 2.3 and 2.4 print it "
                                 "with cuDNN 9); look for the real error elsewhere in the log.", ()),
    "cudnn-cnn-infer-warning": Cause(W, "cuDNN's cnn_infer library does not load: torch warns ('Attempt to open "
                                        "cnn_infer failed') and goes on without it; the cuDNN install is incomplete",
                                     "The GPU works, but a cuDNN library torch asks for is missing from the loader's "
                                     "path or the image, and convolutions may fall back or fail: reinstall torch so that "
                                     "its nvidia-cudnn wheel comes with it, or add the library's folder to the path "
                                     "(in an image: install the cuDNN package it lacks).",
                                     ("pip list | grep -i cudnn", "ldconfig -p | grep cudnn_cnn")),
    "bfloat16-needs-ampere": Cause(NOTE, "the CUDA environment works: the model asks for bfloat16, which this GPU "
                                         "lacks (it needs compute capability 8.0)",
                                   "Not an installation problem: run the model in float16 instead (vLLM: --dtype "
                                   "half; transformers: torch_dtype=torch.float16).", ()),
    "conda-no-cudatoolkit": Cause(W, "conda finds no CUDA package (cudatoolkit, pytorch-cuda) for this platform or "
                                     "version",
                                  "NVIDIA's CUDA packages exist only for Linux and Windows, and each only in some "
                                  "versions: on a Mac there is no CUDA at all (use the MPS device and drop the CUDA "
                                  "pins from the environment file); elsewhere pick a CUDA version the channels "
                                  "publish for this platform.", ("conda info",)),
    "nccl-cuda-error": Cause(W, "NCCL hit a CUDA error while the ranks communicated (unhandled cuda error)",
                             "Run again with NCCL_DEBUG=INFO: the WARN lines name the CUDA call that failed. Common "
                             "causes: an NCCL too old for the GPUs or the driver (update torch, which bundles NCCL, or "
                             "the nccl package), peer-to-peer between the GPUs failing (try NCCL_P2P_DISABLE=1), or a "
                             "GPU that faulted (look for Xid errors).",
                             ("NCCL_DEBUG=INFO python train.py", "nvidia-smi topo -m", "sudo dmesg | grep -i xid")),
    "linker-without-cuda-libs": Cause(W, "a program built against torch is linked without CUDA libraries (the "
                                         "linker's 'cannot find -lcudart', CMake's 'cannot find the CUDA libraries', or "
                                         "a libtorch program without torch_cuda)",
                                      "A CUDA build of torch (or libtorch) links its users against the CUDA toolkit's "
                                      "libraries: install the toolkit (or, in conda, cuda-cudart-dev of torch's CUDA "
                                      "version) and point the build at it with CUDA_HOME (CMake: CUDAToolkit_ROOT); "
                                      "a linker that drops unused libraries (MSVC, --as-needed) must be told to keep "
                                      "torch_cuda (tch-rs: link it with /INCLUDE or -Wl,--no-as-needed); for a "
                                      "CPU-only build, build against the CPU-only torch or libtorch instead.",
                                      ("ls \"$CUDA_HOME/lib64\" | grep cudart", "nvcc --version")),
    "nccl-peer-access": Cause(W, "NCCL's peer-to-peer transport fails: the machine does not give these GPUs peer "
                                 "access to each other (torch and CUDA themselves work)",
                              "Peer access between GPUs needs a PCIe topology, BIOS (ACS, IOMMU) or virtualisation "
                              "that allows it; nvidia-smi topo -m shows the links. Until it does, tell NCCL not to "
                              "use it: set NCCL_P2P_DISABLE=1 for the run (slower transfers, through host memory).",
                              ("nvidia-smi topo -m", "NCCL_P2P_DISABLE=1 NCCL_DEBUG=INFO python train.py")),
    "nccl-system-error": Cause(W, "NCCL could not set up communication between the ranks (unhandled system error)",
                               "Usually the system around the GPUs: in a container /dev/shm is too small (start it "
                               "with --ipc=host or --shm-size=16g), or NCCL picked a network interface it cannot use "
                               "(set NCCL_SOCKET_IFNAME). Run again with NCCL_DEBUG=INFO: its WARN lines name the call "
                               "that failed.", ("df -h /dev/shm", "NCCL_DEBUG=INFO python train.py")),
    "ranks-share-a-gpu": Cause(NOTE, "the CUDA environment works: several distributed ranks run on one GPU",
                               "Not an installation problem: start one process per GPU (torchrun --nproc_per_node, "
                               "accelerate's num_processes, equal to the GPU count) and have each rank use "
                               "cuda:LOCAL_RANK (torch.cuda.set_device) before it creates the process group.",
                               ("nvidia-smi -L",)),
    "is-available-not-called": Cause(NOTE, "the CUDA environment is not involved: the code tests "
                                           "torch.cuda.is_available without calling it",
                                     "Not an installation problem: torch.cuda.is_available is a function, and a "
                                     "function is always true; call it: torch.cuda.is_available(). gpudoctor lint "
                                     "finds such lines in scripts.", ("gpudoctor lint .",)),
    "colab-no-gpu": Cause(W, "the Colab runtime has no GPU: its type is not set to a GPU, or Colab gave it none",
                          "In Colab choose Runtime > Change runtime type > a GPU, and run the notebook again from the "
                          "top. If Colab answers \"Cannot connect to GPU backend\", it has no GPU for the account now "
                          "(usage limits): wait, use a paid tier, or another machine. The graphics card of the "
                          "computer the browser runs on plays no part; nothing is wrong with the notebook's install.",
                          ('python -c "import torch; print(torch.cuda.is_available())"', "nvidia-smi")),
    "gpu-check-at-build": Cause(W, "a GPU check runs while the image is built: docker build steps get no GPU",
                                "Move the check (and anything that needs CUDA) from the Dockerfile's RUN steps to the "
                                "container's start (its entrypoint or command), which runs with --gpus all; skip it "
                                "at build time (Stable Diffusion web UI: --skip-torch-cuda-test).",
                                ("docker run --rm --gpus all IMAGE nvidia-smi",)),
    "vm-no-gpu": Cause(W, "the program runs in a VirtualBox, VMware Workstation or Parallels virtual machine, which "
                          "passes no NVIDIA GPU to its guest",
                       "Run it on the host itself (or under WSL 2 on a Windows host, which reaches the GPU), on a "
                       "hypervisor with GPU passthrough (KVM/VFIO, ESXi, Hyper-V DDA), or on the CPU.",
                       ("nvidia-smi",)),
    "gpu-waits-for-data": Cause(NOTE, "the CUDA environment works: the GPU waits for its data (low utilisation)",
                                "Not an installation problem: the input pipeline cannot feed the GPU. Give the "
                                "DataLoader workers (num_workers, about the CPU cores) and pin_memory=True, keep the "
                                "data on fast local storage, move heavy preprocessing off the training step, and "
                                "check with a larger batch.", ("nvidia-smi dmon -s u",)),
    "gpu-slower-than-cpu": Cause(NOTE, "the CUDA environment works: a timing shows the GPU slower than the CPU",
                                 "Not an installation problem: a single run includes CUDA's start-up and the first "
                                 "calls' warm-up (kernel loading, cuDNN autotuning), and small inputs do not fill a "
                                 "GPU. Time many iterations after a few warm-up ones, with torch.cuda.synchronize() "
                                 "before reading the clock, and compare with larger batches.", ()),
    "misaligned-address": Cause(NOTE, "the CUDA environment works: a kernel read a misaligned address",
                                "Not an installation problem: a kernel in the program or one of its libraries has a "
                                "bug (often a regression after an update); run with CUDA_LAUNCH_BLOCKING=1 to find the "
                                "kernel, then go back to the last version that worked and report it to that project.",
                                ("CUDA_LAUNCH_BLOCKING=1 python train.py",)),
    "invalid-launch-configuration": Cause(NOTE, "the CUDA environment works: a kernel was launched with a grid or "
                                                "block size the GPU cannot run",
                                          "Not an installation problem: a kernel in the program or one of its "
                                          "libraries was launched with an invalid configuration (often an empty or "
                                          "too large input, or too many threads per block); run with "
                                          "CUDA_LAUNCH_BLOCKING=1 to find it.", ("CUDA_LAUNCH_BLOCKING=1 python train.py",)),
    "tensors-of-different-dtypes": Cause(NOTE, "the environment is not what fails: the code mixes tensor dtypes (half "
                                               "and float)",
                                         "Not an installation problem: give every input and the model one dtype (or run "
                                         "under torch.autocast); GTX 16xx cards give NaNs in float16, so run them in "
                                         "full precision.", ()),
    "dataloader-shared-memory": Cause(NOTE, "the GPU is not involved: DataLoader workers ran out of shared memory "
                                            "(/dev/shm, small in containers by default)",
                                      "Not an installation problem: give the container more shared memory (docker run "
                                      "--shm-size=8g, or --ipc=host), or use fewer DataLoader workers (num_workers=0).",
                                      ("df -h /dev/shm",)),
    "animatediff-xformers-warning": Cause(NOTE, "the CUDA environment works: AnimateDiff warns at start-up that "
                                                "xFormers' attention has a bug with it (a warning)",
                                          "Nothing needs fixing unless its outputs break; then start without xFormers "
                                          "(ComfyUI: --use-pytorch-cross-attention)."),
    "launch-timed-out": Cause(NOTE, "the CUDA environment works: a kernel ran longer than the display watchdog allows "
                                    "(Windows stops a GPU that drives a display after about 2 s: TDR)",
                              "Not an installation problem: run smaller steps (batch, resolution, frames), use a GPU "
                              "that drives no display, or raise the watchdog's limit (TdrDelay in the registry, at your "
                              "own risk)."),
    "nans-in-half-precision": Cause(NOTE, "the CUDA environment works: the model produced NaNs in half precision (common "
                                          "on GTX 16xx cards and with some models)",
                                    "Not an installation problem: run the model in full precision for the parts that "
                                    "overflow (the web UI's --no-half or --no-half-vae, or its 'upcast cross attention' "
                                    "setting)."),
    "triton-not-available": Cause(NOTE, "the CUDA environment works: xFormers found no matching Triton (none is published "
                                        "for Windows), so only its Triton kernels are off (a warning)",
                                  "Nothing needs fixing; on Linux, installing the triton release that matches torch turns "
                                  "those kernels on.", ("pip show triton",)),
    "cudnn-nvrtc-workaround": Cause(NOTE, "the CUDA environment works: torch found no unversioned libnvrtc.so for one "
                                          "of cuDNN's paths, applied its workaround and went on (a warning)",
                                    "Nothing needs fixing; to silence the warning, make libnvrtc.so resolvable: a link "
                                    "named libnvrtc.so to the versioned library in the same folder.",
                                    ('python -c "import torch; print(torch.__version__, torch.version.cuda)"',)),
    "cuda-in-forked-subprocess": Cause(NOTE, "the CUDA environment works: the code starts CUDA and then forks worker "
                                             "processes, which cannot use it",
                                       "Not an installation problem: start the workers with the 'spawn' method "
                                       "(multiprocessing.set_start_method('spawn') or torch.multiprocessing), or do no "
                                       "CUDA work in the parent before the workers start.", ()),
    "spawn-without-main-guard": Cause(NOTE, "the CUDA environment is not involved: worker processes start by spawn "
                                            "and the script has no if __name__ == '__main__': guard",
                                      "Not an installation problem: put the script's top-level code under "
                                      "if __name__ == '__main__': (DataLoader workers re-import the main module on "
                                      "Windows and macOS), or set num_workers=0.", ()),
    "model-loaded-on-gpu": Cause(NOTE, "the CUDA environment works: vLLM loaded the model's weights onto the GPU",
                                 "Not an installation problem: what fails comes after the weights are on the GPU "
                                 "(memory for the KV cache, the model's size for the GPUs, a setting).", ("nvidia-smi",)),
    "torchvision-ops-not-imported": Cause(NOTE, "the environment may be fine: the code calls torch.ops.torchvision.* "
                                          "without importing torchvision, and only that import registers its operators",
                                          "Import torchvision before calling its operators through torch.ops, or call "
                                          "torchvision.ops.nms; if `import torchvision` itself fails, torchvision is "
                                          "built for another torch.",
                                          ('python -c "import torch, torchvision; print(torch.__version__, '
                                           'torchvision.__version__)"',)),
    "tensors-on-different-devices": Cause(NOTE, "the CUDA environment works: the code mixes CPU and GPU tensors",
                                          "Not an installation problem: move the model and every input to the same "
                                          "device.", ()),
}

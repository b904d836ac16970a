"""Names the data-flow guesses rest on: torch's tensor factories and methods, dtypes, model-like names."""

from __future__ import annotations

import re

CREATORS = frozenset({
    "tensor", "Tensor", "as_tensor", "from_numpy", "zeros", "ones", "empty", "full", "rand", "randn", "randint",
    "randperm", "arange", "linspace", "logspace", "eye", "FloatTensor", "DoubleTensor", "HalfTensor",
    "LongTensor", "IntTensor", "ByteTensor", "BoolTensor", "BFloat16Tensor", "ShortTensor", "CharTensor",
})
NOT_TENSOR = frozenset({
    "device", "load", "save", "no_grad", "enable_grad", "inference_mode", "set_grad_enabled", "manual_seed",
    "compile", "set_default_tensor_type", "set_default_device", "set_default_dtype", "get_default_dtype",
    "is_tensor", "is_grad_enabled", "set_num_threads", "get_num_threads", "use_deterministic_algorithms",
    "set_printoptions", "autocast", "finfo", "iinfo", "dtype", "initial_seed", "seed", "numel",
    "set_float32_matmul_precision", "is_floating_point", "typename", "get_rng_state", "set_rng_state",
})
TENSOR_METHODS = frozenset({
    "view", "reshape", "permute", "transpose", "contiguous", "clone", "detach", "squeeze", "unsqueeze",
    "flatten", "long", "int", "bool", "byte", "argmax", "argmin", "sum", "mean", "std", "softmax",
    "log_softmax", "expand", "expand_as", "repeat", "t", "narrow", "index_select", "masked_fill", "gather",
    "pin_memory", "type_as", "view_as", "reshape_as", "new_zeros", "new_ones", "new_full", "new_empty",
    "new_tensor", "abs", "exp", "log", "sigmoid", "relu", "max", "min", "eq", "ne", "gt", "lt", "ge", "le",
    "float", "half", "double", "bfloat16", "to", "cuda", "cpu", "topk", "sort", "split", "chunk", "norm",
    "pow", "sqrt", "add", "sub", "mul", "div", "matmul", "mm", "bmm", "squeeze_", "unsqueeze_", "requires_grad_",
})
KEEPS_KIND = frozenset({"to", "cuda", "cpu", "half", "float", "double", "bfloat16", "train", "eval",
                        "requires_grad_", "share_memory", "type"})
DTYPES = frozenset({
    "float", "float16", "float32", "float64", "half", "double", "bfloat16", "int", "int8", "int16", "int32",
    "int64", "long", "uint8", "bool", "short", "complex64", "complex128", "cfloat", "cdouble",
    "float8_e4m3fn", "float8_e5m2",
})
MODULE_PARAM = re.compile(r"^(model|net|network|module|criterion|loss_fn|loss_func|lossfn|.*_model|model_.*|.*_net)$",
                          re.IGNORECASE)
DEVICE_NAME = re.compile(r"(device|dev|cuda|gpu|rank)", re.IGNORECASE)
CUDA_STRING = re.compile(r"^cuda(:\d+)?$")
WRAPPERS = frozenset({"DataParallel", "DistributedDataParallel", "FullyShardedDataParallel", "Sequential",
                      "ModuleList", "ModuleDict"})

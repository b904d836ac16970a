"""Each lint rule on code written to trip it, and on correct code that looks alike (false positives)."""

from __future__ import annotations

import pytest

from lintkit import defaults, diagnostics, found

HEAD = """
import torch
import torch.nn as nn
import torchvision

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
"""


def body(code: str) -> str:
    """``code`` after the common imports; the first line of ``code`` is line 6."""
    return HEAD.lstrip("\n") + code.strip("\n") + "\n"


# -- GD101 discarded moves ------------------------------------------------------------------------------------
@pytest.mark.parametrize("code", [
    "x = torch.randn(3)\nx.to(device)",
    "x = torch.zeros(3)\nx.cuda()",
    "x = torch.ones(3).to(device)\nx.cpu()",
    "x = torch.randn(3)\nx[0].to(device)",
    "x = torch.randn(3)\nx.to(torch.float16)",
    "for images, labels in torch.utils.data.DataLoader(ds):\n    images.to(device)",
])
def test_discarded_tensor_moves_are_found(code: str) -> None:
    assert [c for _, c in found(body(code), select=["GD101"])] == ["GD101"]


@pytest.mark.parametrize("code", [
    "model = nn.Linear(3, 4)\nmodel.to(device)",
    "class Net(nn.Module):\n    pass\nclass Deeper(Net):\n    pass\nnet = Deeper()\nnet.to(device)",
    "model = torchvision.models.resnet18()\nmodel.cuda()",
    "model = nn.Sequential(nn.Linear(3, 4)).to(device)\nmodel.half().to(device)",
    "def train(model, x):\n    model.to(device)\n    x.to(device)",  # x: unknown, not judged
    "class T:\n    def __init__(self, model):\n        self.model = model\n        self.model.to(device)",
    "criterion = nn.CrossEntropyLoss()\ncriterion.cuda()",
    "x = torch.randn(3)\nx = x.to(device)",
    "torch.zeros(1).cuda()",  # starts CUDA early; nothing stays behind
])
def test_module_moves_and_unknown_receivers_are_not_reported(code: str) -> None:
    assert found(body(code), select=["GD101"]) == []


# -- GD102 model and input on different devices ---------------------------------------------------------------
@pytest.mark.parametrize("code, line", [
    ("model = nn.Linear(10, 2).to(device)\nx = torch.randn(8, 10)\nout = model(x)", 8),
    ("model = nn.Linear(10, 2)\nmodel.cuda()\nfor x, y in torch.utils.data.DataLoader(ds):\n    out = model(x)", 9),
    ("class Net(nn.Module):\n    pass\nnet = Net()\nx = torch.randn(8, 10).to(device)\nout = net(x)", 10),
])
def test_model_and_input_on_different_devices_are_found(code: str, line: int) -> None:
    assert found(body(code), select=["GD102"]) == [(line, "GD102")]


@pytest.mark.parametrize("code", [
    "model = nn.Linear(10, 2).to(device)\nx = torch.randn(8, 10).to(device)\nout = model(x)",
    "model = nn.Linear(10, 2).to(device)\nx = torch.randn(8, 10, device=device)\nout = model(x)",
    "model = nn.Linear(10, 2).to(device)\nfor x, y in torch.utils.data.DataLoader(ds):\n    x = x.to(device)\n"
    "    out = model(x)",
    "model = nn.Linear(10, 2)\nsetup(model)\nx = torch.randn(8, 10).to(device)\nout = model(x)",  # moved elsewhere?
    "act = nn.ReLU()\nx = torch.randn(3).to(device)\ny = act(x)",
    "loss_fn = nn.MSELoss()\nx = torch.randn(3).to(device)\ny = loss_fn(x, x)",
    "model = nn.Linear(10, 2)\nx = torch.randn(8, 10)\nout = model(x)",  # both on the CPU
    "model = nn.Linear(10, 2).cuda()\nddp = nn.parallel.DistributedDataParallel(model)\n"
    "out = ddp(torch.randn(8, 10).cuda())",  # a wrapper is where the model it wraps is
    "model = nn.Linear(10, 2).to(device)\nfast = torch.compile(model)\nout = fast(torch.randn(8, 10, device=device))",
    "import copy\nnet = nn.Linear(1, 5).to(device)\nddp = nn.parallel.DistributedDataParallel(copy.deepcopy(net))\n"
    "out = ddp(torch.randn(7, 1, device=device))",
    "ddp = nn.parallel.DistributedDataParallel(build())\nout = ddp(torch.randn(7, 1, device=device))",
])
def test_same_device_or_unknown_is_not_reported(code: str) -> None:
    assert found(body(code), select=["GD102"]) == []


# -- GD103 loss weights ---------------------------------------------------------------------------------------
def test_weighted_loss_never_moved_is_found_and_moved_ones_are_not() -> None:
    code = "w = torch.tensor([1.0, 3.0])\ncriterion = nn.CrossEntropyLoss(weight=w)\n" \
           "model = nn.Linear(2, 2).to(device)\nloss = criterion(model(x), y)"
    assert found(body(code), select=["GD103"]) == [(7, "GD103")]
    assert found(body(code + "\ncriterion.to(device)"), select=["GD103"]) == []
    assert found(body(code.replace("weight=w)", "weight=w).to(device)")), select=["GD103"]) == []
    assert found(body(code.replace("[1.0, 3.0])", "[1.0, 3.0], device=device)")), select=["GD103"]) == []
    pos = "criterion = nn.BCEWithLogitsLoss(pos_weight=torch.ones(3))\nx = torch.randn(3).cuda()\n" \
          "loss = criterion(x, x)"
    assert found(body(pos), select=["GD103"]) == [(6, "GD103")]


def test_weighted_loss_in_a_cpu_only_script_is_not_reported() -> None:
    code = "import torch\nimport torch.nn as nn\ncriterion = nn.CrossEntropyLoss(weight=torch.ones(2))\n" \
           "loss = criterion(a, b)\n"
    assert found(code) == []


# -- GD105 .cuda() without an availability check ---------------------------------------------------------------
def test_cuda_without_availability_check_is_reported_once_per_file() -> None:
    code = "import torch\nmodel = Net().cuda()\nx = torch.zeros(3).to('cuda')\ny = torch.device('cuda:0')\n"
    hits = diagnostics(code, select=["GD105"])
    assert [(d.line, d.code) for d in hits] == [(2, "GD105")] and "(and 2 more)" in hits[0].message


@pytest.mark.parametrize("check", ["torch.cuda.is_available()", "torch.cuda.device_count()",
                                   "torch.accelerator.is_available()"])
def test_any_availability_check_counts(check: str) -> None:
    assert found(f"import torch\nok = {check}\nmodel = Net().cuda()\n", select=["GD105"]) == []


def test_moves_to_a_device_variable_need_no_check() -> None:
    assert found("import torch\nmodel = Net().to(device)\n", select=["GD105"]) == []


# -- GD106 an availability function tested without being called ----------------------------------------------
@pytest.mark.parametrize("line", [
    "cuda = True if torch.cuda.is_available else False",
    "if torch.cuda.is_available:\n    model.cuda()",
    "use = args.cuda and torch.cuda.is_available",
    "if not torch.backends.mps.is_available:\n    pass",
    "assert torch.cuda.is_available",
])
def test_an_availability_function_tested_without_a_call_is_reported(line: str) -> None:
    hits = diagnostics(f"import torch\n{line}\n", select=["GD106"])
    assert [d.code for d in hits] == ["GD106"] and "()" in hits[0].fix


@pytest.mark.parametrize("line", [
    "cuda = True if torch.cuda.is_available() else False",
    "check = torch.cuda.is_available",  # kept to be called later
    "skip = pytest.mark.skipif(not torch.cuda.is_available(), reason='no GPU')",
    "if my.is_available:\n    pass",  # not torch's
])
def test_calls_and_stored_functions_are_not_reported(line: str) -> None:
    assert found(f"import torch\n{line}\n", select=["GD106"]) == []


# -- GD201 CPU tensors created and moved in a loop ------------------------------------------------------------
@pytest.mark.parametrize("code", [
    "for batch in data:\n    t = torch.tensor(batch).cuda()",
    "while True:\n    mask = torch.ones(4)\n    mask = mask.to(device)",
    "for i in range(10):\n    noise = torch.randn(4, 4).to(device=device)",
])
def test_cpu_tensors_created_and_moved_in_a_loop_are_found(code: str) -> None:
    assert [c for _, c in found(body(code), select=["GD201"])] == ["GD201"]


@pytest.mark.parametrize("code", [
    "for batch in data:\n    t = torch.from_numpy(batch).cuda()",
    "for epoch in range(10):\n    sample = torch.randn(64, 20).to(device)",
    "for i in range(10):\n    noise = torch.randn(4, 4, device=device)",
    "noise = torch.randn(4, 4).to(device)",
    "for i in range(10):\n    half = torch.randn(4, 4).to(torch.float16)",
])
def test_device_creation_from_numpy_per_epoch_and_outside_loops_are_not_reported(code: str) -> None:
    assert found(body(code), select=["GD201"]) == []


# -- GD202 and GD203 per-step prints and syncs ----------------------------------------------------------------
LOOP = """
model = nn.Linear(3, 1).to(device)
criterion = nn.MSELoss()
for x, y in torch.utils.data.DataLoader(ds, num_workers=4):
    x, y = x.to(device), y.to(device)
    loss = criterion(model(x), y)
    loss.backward()
    {step}
"""


@pytest.mark.parametrize("step, code", [
    ("print(loss)", "GD202"), ("print(f'loss {loss}')", "GD202"), ("print('loss', loss.item())", "GD202"),
    ("total += loss.item()", "GD203"), ("values.append(loss.cpu().numpy())", "GD203"),
    ("total += float(loss)", "GD203"), ("pbar.set_postfix(loss=loss.item())", "GD203"),
])
def test_per_step_prints_and_syncs_are_found(step: str, code: str) -> None:
    assert [c for _, c in found(body(LOOP.format(step=step)), select=["GD202", "GD203"])] == [code]


@pytest.mark.parametrize("step", [
    "if step % 100 == 0:\n        print(loss.item())",
    "try:\n        pass\n    except ValueError:\n        print(loss)",
    "print('step done')",
    "total += loss.detach()",
])
def test_conditional_prints_and_device_side_sums_are_not_reported(step: str) -> None:
    assert found(body(LOOP.format(step=step)), select=["GD202", "GD203"]) == []


def test_sync_rule_is_off_by_default() -> None:
    assert defaults(body(LOOP.format(step="total += loss.item()"))) == []


def test_syncs_outside_a_training_loop_are_not_reported() -> None:
    code = "model = nn.Linear(3, 1)\nfor x, y in loader:\n    correct += (model(x) == y).sum().item()"
    assert found(body(code), select=["GD203"]) == []


# -- GD204 per-sample evaluation ------------------------------------------------------------------------------
@pytest.mark.parametrize("code", [
    "model = nn.Linear(3, 1)\nX = torch.rand(10, 3)\nfor i in range(len(X)):\n    out = model(X[i].unsqueeze(0))",
    "model = nn.Linear(3, 1)\nX = torch.rand(10, 3)\nfor row in X:\n    out = model(row)",
    "model = nn.Linear(3, 1)\nX = torch.rand(10, 3)\nY = torch.rand(10)\nfor x, y in zip(X, Y):\n    out = model(x)",
])
def test_per_sample_model_calls_are_found(code: str) -> None:
    assert [c for _, c in found(body(code), select=["GD204"])] == ["GD204"]


@pytest.mark.parametrize("code", [
    "model = nn.Linear(3, 1)\nX = torch.rand(10, 3)\nfor i in range(0, len(X), 100):\n    out = model(X[i:i + 100])",
    "model = nn.Linear(3, 1)\nfor x, y in torch.utils.data.DataLoader(ds):\n    out = model(x)",
    "X = torch.rand(10, 3)\nfor i in range(len(X)):\n    print(X[i])",
])
def test_batched_evaluation_is_not_reported(code: str) -> None:
    assert found(body(code), select=["GD204"]) == []


# -- GD205 DataLoader without workers -------------------------------------------------------------------------
@pytest.mark.parametrize("call, expected", [
    ("DataLoader(ds, batch_size=64)", ["GD205"]),
    ("DataLoader(ds, batch_size=64, num_workers=0)", ["GD205"]),
    ("DataLoader(ds, batch_size=64, num_workers=4)", []),
    ("DataLoader(ds, batch_size=64, pin_memory=True)", []),
    ("DataLoader(ds, **kwargs)", []),
])
def test_dataloader_feeding_a_gpu(call: str, expected: list) -> None:
    code = f"from torch.utils.data import DataLoader\nloader = {call}\nmodel = nn.Linear(3, 1).to(device)"
    assert [c for _, c in found(body(code), select=["GD205"])] == expected


def test_dataloader_over_a_dataset_already_on_the_gpu_is_not_reported() -> None:
    code = "from torch.utils.data import DataLoader, TensorDataset\nX = torch.rand(100, 3).to(device)\n" \
           "Y = torch.rand(100).to(device)\nds = TensorDataset(X, Y)\nloader = DataLoader(ds, batch_size=10)"
    assert found(body(code), select=["GD205"]) == []
    assert found(body(code.replace(".to(device)", "")) + "m = nn.Linear(3, 1).cuda()\n", select=["GD205"]) != []


def test_dataloader_in_a_cpu_only_script_is_not_reported() -> None:
    assert found("from torch.utils.data import DataLoader\nloader = DataLoader(ds)\n", select=["GD205"]) == []


# -- GD206 and GD301 ------------------------------------------------------------------------------------------
def test_data_parallel_under_any_import_is_found() -> None:
    code = "from torch.nn import DataParallel\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n" \
           "a = DataParallel(m)\nb = torch.nn.parallel.DataParallel(m)\nc = DDP(m)"
    assert found(body(code), select=["GD206"]) == [(8, "GD206"), (9, "GD206")]


def test_set_default_tensor_type_double_maps_to_set_default_dtype() -> None:
    hits = diagnostics("import torch\ntorch.set_default_tensor_type(torch.DoubleTensor)\n"
                       "torch.set_default_tensor_type('torch.cuda.HalfTensor')\n")
    assert [d.code for d in hits] == ["GD301", "GD301"]
    assert "torch.set_default_device('cuda')" in hits[1].fix and "torch.set_default_dtype(torch.float16)" in hits[1].fix


# -- GD104 visible devices ------------------------------------------------------------------------------------
@pytest.mark.parametrize("setter", [
    "os.environ['CUDA_VISIBLE_DEVICES'] = '1'",
    "os.environ.setdefault('CUDA_VISIBLE_DEVICES', '1')",
    "os.environ.update({'CUDA_VISIBLE_DEVICES': '1'})",
    "os.putenv('CUDA_VISIBLE_DEVICES', '1')",
])
def test_every_way_of_setting_visible_devices_after_init_is_found(setter: str) -> None:
    code = f"import os\nimport torch\nn = torch.cuda.device_count()\n{setter}\n"
    assert found(code) == [(4, "GD104")]


def test_visible_devices_set_in_a_function_before_its_own_cuda_calls_is_clean() -> None:
    code = "import os\nimport torch\n\ndef main():\n    os.environ['CUDA_VISIBLE_DEVICES'] = '0,1'\n" \
           "    torch.cuda.set_device(1)\n    if torch.cuda.is_available():\n        pass\n"
    assert found(code) == []

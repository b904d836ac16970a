"""Every device pitfall in the tutorials' own code is found, and their correct code is left alone.

The snippets below are the tutorials' code (seeds 000-004), trimmed to the lines that matter; line numbers
in the expectations count from the first line of each snippet.
"""

from __future__ import annotations

from lintkit import defaults, diagnostics, found

# Seed 002: the Dogs-vs-Cats data moved to the GPU by calls whose results are thrown away.
SEED_002_DATA = """
import numpy as np
import torch

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
training_data = np.load("training_data.npy", allow_pickle=True)
X = torch.Tensor([i[0] for i in training_data]).view(-1, 50, 50)
X = X / 255.0
y = torch.Tensor([i[1] for i in training_data])
val_size = int(len(X) * 0.1)
test_X = X[-val_size:]
test_y = y[-val_size:]
test_X.to(device)
test_y.to(device)
"""

# Seed 002: the training loop (correct: batches are moved and kept) and the per-sample test loop.
SEED_002_LOOPS = """
import torch
import torch.nn as nn
import torch.optim as optim
from tqdm import tqdm

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")


class Net(nn.Module):
    def forward(self, x):
        return x


net = Net().to(device)


def train(net):
    optimizer = optim.Adam(net.parameters(), lr=0.001)
    loss_function = nn.MSELoss()
    for epoch in range(5):
        for i in range(0, len(train_X), 100):
            batch_X = train_X[i:i + 100].view(-1, 1, 50, 50)
            batch_y = train_y[i:i + 100]
            batch_X, batch_y = batch_X.to(device), batch_y.to(device)
            net.zero_grad()
            outputs = net(batch_X)
            loss = loss_function(outputs, batch_y)
            loss.backward()
            optimizer.step()
        print(f"Epoch: {epoch}. Loss: {loss}")


def test(net):
    correct = 0
    total = 0
    with torch.no_grad():
        for i in tqdm(range(len(test_X))):
            real_class = torch.argmax(test_y[i]).to(device)
            net_out = net(test_X[i].view(-1, 1, 50, 50).to(device))[0]
            predicted_class = torch.argmax(net_out)
            if predicted_class == real_class:
                correct += 1
            total += 1


train_X = torch.rand(100, 50, 50)
train_y = torch.rand(100, 2)
test_X = torch.rand(10, 50, 50)
test_y = torch.rand(10, 2)
"""


def test_seed_002_discarded_moves_are_found() -> None:
    assert defaults(SEED_002_DATA) == [(12, "GD101"), (13, "GD101")]
    first = diagnostics(SEED_002_DATA)[0]
    assert "test_X.to(device)" in first.message and "only modules move in place" in first.message
    assert first.fix == "keep the copy: `test_X = test_X.to(device)`"


def test_seed_002_per_sample_test_loop_is_found_and_the_training_loop_is_not() -> None:
    assert defaults(SEED_002_LOOPS) == [(39, "GD204")]
    # the epoch print is once per epoch, outside the step loop: no per-step sync either
    assert found(SEED_002_LOOPS, select=["GD202", "GD203"]) == []


def test_seed_002_fixed_is_clean() -> None:
    fixed = SEED_002_DATA.replace("test_X.to(device)", "test_X = test_X.to(device)").replace(
        "test_y.to(device)", "test_y = test_y.to(device)")
    assert found(fixed) == []


# Seed 004, section 3: a loss module with a weight buffer must move too.
SEED_004_LOSS = """
import torch

if torch.cuda.is_available():
    criterion = torch.nn.CrossEntropyLoss(weight=torch.Tensor([1, 3]))
    inputs = torch.randn(4, 2).cuda()
    target = torch.Tensor([1, 0, 0, 1]).long().cuda()
    loss = criterion(inputs, target)
"""


def test_seed_004_loss_weight_left_on_the_cpu_is_found() -> None:
    assert defaults(SEED_004_LOSS) == [(4, "GD103")]
    assert "criterion = torch.nn.CrossEntropyLoss(weight=torch.Tensor([1, 3])).to(device)" in \
        diagnostics(SEED_004_LOSS)[0].fix


def test_seed_004_loss_module_moved_as_the_tutorial_does_is_clean() -> None:
    moved = SEED_004_LOSS.replace("    loss = criterion", "    criterion.cuda()\n    loss = criterion")
    assert found(moved) == []
    built_on_gpu = SEED_004_LOSS.replace("weight=torch.Tensor([1, 3])",
                                         "weight=torch.tensor([1.0, 3.0], device='cuda')")
    assert found(built_on_gpu) == []


# Seed 004, sections 1 and 2: tensors are copied (kept), modules move in place.
SEED_004_MOVES = """
import torch
from torch import nn

t = torch.tensor([1, 2, 3])
if torch.cuda.is_available():
    t_cuda = t.cuda()
    module = nn.Linear(3, 4)
    module.cuda(device=0)
    t_cuda = t.to('cuda:0')
"""


def test_seed_004_copies_kept_and_modules_moved_in_place_are_clean() -> None:
    assert found(SEED_004_MOVES) == []


SEED_004_DEFAULT_TYPE = """
import torch

torch.set_default_tensor_type('torch.cuda.FloatTensor')
a = torch.ones(2, 3)
torch.set_default_tensor_type('torch.FloatTensor')
"""


def test_seed_004_set_default_tensor_type_is_found_with_its_replacement() -> None:
    assert defaults(SEED_004_DEFAULT_TYPE) == [(3, "GD301"), (5, "GD301")]
    hits = diagnostics(SEED_004_DEFAULT_TYPE)
    assert "torch.set_default_device('cuda')" in hits[0].fix
    assert "torch.set_default_device('cpu')" in hits[1].fix


SEED_004_VISIBLE_LATE = """
import os
import torch

print(torch.cuda.is_available())
os.environ['CUDA_VISIBLE_DEVICES'] = '0,1'
x = torch.zeros(3, device='cuda:1')
"""

SEED_004_VISIBLE_RENUMBERED = """
import os
os.environ['CUDA_VISIBLE_DEVICES'] = '2'
import torch

device = torch.device('cuda:2' if torch.cuda.is_available() else 'cpu')
"""


def test_seed_004_visible_devices_set_after_cuda_started_is_found() -> None:
    assert defaults(SEED_004_VISIBLE_LATE) == [(5, "GD104")]
    message = diagnostics(SEED_004_VISIBLE_LATE)[0].message
    assert "line 4" in message and "cuda:1 (line 6) still names physical GPU 1" in message


def test_seed_004_hard_coded_ordinal_renumbered_away_is_found() -> None:
    assert defaults(SEED_004_VISIBLE_RENUMBERED) == [(5, "GD104")]
    hit = diagnostics(SEED_004_VISIBLE_RENUMBERED)[0]
    assert "cuda:2 does not exist" in hit.message and "cuda:0 is physical GPU 2" in hit.fix


def test_seed_004_visible_devices_set_first_and_addressed_from_zero_is_clean() -> None:
    assert found(SEED_004_VISIBLE_RENUMBERED.replace("cuda:2", "cuda:0")) == []


# Seed 004, section 4: a CPU tensor built and copied every iteration (here inside a loop).
SEED_004_LEGACY_IN_LOOP = """
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
for step in range(100):
    b = torch.FloatTensor(2, 3).cuda()
    noise = torch.zeros(8, 3).to(device)
"""


def test_cpu_tensors_created_and_moved_every_iteration_are_found() -> None:
    assert defaults(SEED_004_LEGACY_IN_LOOP) == [(5, "GD201"), (6, "GD201")]
    hits = diagnostics(SEED_004_LEGACY_IN_LOOP)
    assert "torch.tensor(..., device=device)" in hits[0].fix
    assert hits[1].fix == "create it on the device: `torch.zeros(8, 3, device=device)`"


# Seed 000: the CIFAR-10 tutorial moved to the GPU, with DataParallel on several GPUs.
SEED_000 = """
import torch
import torch.nn as nn

net = Net()
device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
if torch.cuda.device_count() > 1:
    print("Let's use", torch.cuda.device_count(), "GPUs!")
    net = nn.DataParallel(net)
net.to(device)
mytensor = my_tensor.to(device)
"""


def test_seed_000_data_parallel_is_found_and_the_moves_are_not() -> None:
    assert defaults(SEED_000) == [(8, "GD206")]
    assert "DistributedDataParallel" in diagnostics(SEED_000)[0].fix


# Seed 001: the MNIST FNN moved with .cuda() (no availability check), loaders without workers.
SEED_001 = """
import torch
import torch.nn.functional as functional
import torch.optim as optim
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
train_dataset = datasets.MNIST(root="../Data/MNIST", train=True, download=True, transform=transform)
train_loader = DataLoader(train_dataset, shuffle=True, batch_size=64)


class FullyNeuralNetwork(torch.nn.Module):
    def forward(self, data):
        return data.view(-1, 784)


def train(epoch, model, criterion, optimizer):
    running_loss = 0.0
    for batch_idx, data in enumerate(train_loader, 0):
        inputs, target = data
        inputs = inputs.cuda()
        target = target.cuda()
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = criterion(outputs, target)
        loss.backward()
        optimizer.step()
        running_loss += loss.cpu().item()
        if batch_idx % 300 == 0:
            print('[%d, %5d] loss: %.3f' % (epoch, batch_idx, running_loss / 300))
            running_loss = 0.0


if __name__ == "__main__":
    cpu_model = FullyNeuralNetwork()
    gpu_model = cpu_model.cuda()
    criterion = torch.nn.CrossEntropyLoss()
    optimizer = optim.SGD(gpu_model.parameters(), lr=0.1, momentum=0.5)
    for epoch in range(5):
        train(epoch, gpu_model, criterion, optimizer)
"""


def test_seed_001_cuda_without_check_and_loader_without_workers_are_found() -> None:
    assert defaults(SEED_001) == [(9, "GD205"), (21, "GD105")]
    assert "(and 2 more)" in diagnostics(SEED_001)[1].message


def test_seed_001_per_step_sync_is_found_when_selected() -> None:
    assert found(SEED_001, select=["GD203"]) == [(28, "GD203")]


# Seed 003: the CIFAR-10 tutorial with device selection, per-step moves, evaluation after reloading.
SEED_003 = """
import torch
import torch.nn as nn
import torch.optim as optim
import torchvision

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
trainloader = torch.utils.data.DataLoader(trainset, batch_size=4, shuffle=True, num_workers=2)
testloader = torch.utils.data.DataLoader(testset, batch_size=4, shuffle=False, num_workers=2)


class Net(nn.Module):
    def forward(self, x):
        return x


net = Net()
net.to(device)
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
for epoch in range(2):
    running_loss = 0.0
    for i, data in enumerate(trainloader, 0):
        inputs, labels = data[0].to(device), data[1].to(device)
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        if i % 2000 == 1999:
            print('[%d, %5d] loss: %.3f' % (epoch + 1, i + 1, running_loss / 2000))
            running_loss = 0.0

net = Net()
net.load_state_dict(torch.load('./cifar_net.pth'))
with torch.no_grad():
    for data in testloader:
        images, labels = data
        outputs = net(images)
        _, predicted = torch.max(outputs.data, 1)
        c = (predicted == labels).squeeze()
        for i in range(4):
            label = labels[i]
            class_correct[label] += c[i].item()
"""


def test_seed_003_is_clean_by_default() -> None:
    assert defaults(SEED_003) == []


def test_seed_003_running_loss_item_is_the_opt_in_sync_rule() -> None:
    assert found(SEED_003, select=["GD203"]) == [(29, "GD203")]

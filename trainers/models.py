"""The reference models: seed 001's FNN, a LeNet-style CNN for MNIST, the CIFAR-10 LeNet of seeds 000/003, and
seed 002's Dogs-vs-Cats CNN."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class FNN(nn.Module):
    """Seed 001's fully connected network for MNIST: 784-512-256-128-64-10 with ReLU."""

    def __init__(self) -> None:
        super().__init__()
        self.layer_1 = nn.Linear(784, 512)
        self.layer_2 = nn.Linear(512, 256)
        self.layer_3 = nn.Linear(256, 128)
        self.layer_4 = nn.Linear(128, 64)
        self.layer_5 = nn.Linear(64, 10)

    def forward(self, data: torch.Tensor) -> torch.Tensor:
        x = data.view(-1, 784)
        x = F.relu(self.layer_1(x))
        x = F.relu(self.layer_2(x))
        x = F.relu(self.layer_3(x))
        x = F.relu(self.layer_4(x))
        logits: torch.Tensor = self.layer_5(x)
        return logits


class MnistCNN(nn.Module):
    """A small LeNet-style CNN for 1x28x28 images: two 5x5 convolutions with max-pooling, then two linear layers."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 5)
        self.conv2 = nn.Conv2d(16, 32, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.fc1 = nn.Linear(32 * 4 * 4, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 32 * 4 * 4)
        x = F.relu(self.fc1(x))
        logits: torch.Tensor = self.fc2(x)
        return logits


class LeNet(nn.Module):
    """Seeds 000/003's CIFAR-10 classifier: conv 3->6 5x5, pool, conv 6->16 5x5, pool, fc 400-120-84-10."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        logits: torch.Tensor = self.fc3(x)
        return logits


class CatsDogsNet(nn.Module):
    """Seed 002's Dogs-vs-Cats CNN for 1x50x50 grayscale images: conv 1->32->64->128 (5x5, each followed by 2x2
    max-pooling), fc 512->512->``classes``, softmax output (seed 002 trains it with MSE on one-hot targets)."""

    def __init__(self, classes: int = 2) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 5)
        self.conv2 = nn.Conv2d(32, 64, 5)
        self.conv3 = nn.Conv2d(64, 128, 5)
        self.fc1 = nn.Linear(128 * 2 * 2, 512)
        self.fc2 = nn.Linear(512, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv3(x)), (2, 2))
        x = x.view(-1, 128 * 2 * 2)
        x = F.relu(self.fc1(x))
        return F.softmax(self.fc2(x), dim=1)


_MODELS = {"fnn": FNN, "cnn": MnistCNN, "lenet": LeNet}


def build(name: str, seed: int, classes: int = 0) -> nn.Module:
    """A fresh model on the CPU whose initial weights depend only on ``seed``, so every device starts alike;
    ``classes`` sizes the output of the models made for any number of classes (0: the model's own)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        if name == "catsdogs":
            return CatsDogsNet(classes or 2)
        return _MODELS[name]()


def describe(name: str) -> str:
    """One line naming the model's layers, for progress bars and reports."""
    return {
        "fnn": "FNN 784-512-256-128-64-10",
        "cnn": "CNN conv 1-16-32 5x5, fc 512-128-10",
        "lenet": "LeNet conv 3-6-16 5x5, fc 400-120-84-10",
        "catsdogs": "Dogs-vs-Cats CNN conv 1-32-64-128 5x5, fc 512-512",
    }[name]

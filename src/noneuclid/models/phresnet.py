"""PHResNets for CIFAR10 (PHYDI paper, section 3.1 and Tables 1-2).

CIFAR-style ResNet: a 3x3 stem convolution with stride 1 and no max-pool, four stages (strides 1, 2,
2, 2), global average pooling and a real linear head. Every convolution (stem, blocks, projection
shortcuts) is a PHConv2d with the same n; BatchNorm everywhere as usual.

    depth 18:  basic blocks [2, 2, 2, 2]        depth 50 / 152: bottlenecks [3, 4, 6, 3] / [3, 8, 36, 3]
    n = 2, 4:  widths 64/128/256/512, 4 input channels (a zero channel prepended to normalised RGB)
    n = 3:     widths 60/120/240/516, 3 input channels

Blocks by `init` (branch = conv-BN, then ReLU-conv-BN for each further conv):
    standard: out = relu(shortcut(x) + branch(x))
    wkp:      the same, with every PH weight sum_s w_s A_s (x) F_s (learnable w_s = 1 at init)
    phydi:    out = shortcut(x) + alpha * relu(branch(x)), alpha = 0 at init (the paper's eq. 3):
              no ReLU after the sum, so a block with an identity shortcut is the identity at init.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn
from torch.nn import functional

from noneuclid.nn.hypercomplex import PHConv2d, ResidualGate

STAGES = {18: ("basic", (2, 2, 2, 2)), 50: ("bottleneck", (3, 4, 6, 3)), 152: ("bottleneck", (3, 8, 36, 3))}
WIDTHS = {2: (64, 128, 256, 512), 3: (60, 120, 240, 516), 4: (64, 128, 256, 512)}
IN_CHANNELS = {2: 4, 3: 3, 4: 4}
INITS = ("standard", "wkp", "phydi")
EXPANSION = {"basic": 1, "bottleneck": 4}


def _choice(name: str, value, choices) -> None:
    if value not in choices:
        raise ValueError(f"unknown {name} {value!r}: use one of {sorted(choices)}")


class PHBlock(nn.Module):
    """One residual block (see the module docstring for the three `init` layouts).

    basic: 3x3 (stride) -> 3x3, out = planes; bottleneck: 1x1 -> 3x3 (stride) -> 1x1, out = 4 planes.
    The shortcut is the identity when the shape is kept, else a strided 1x1 PHConv2d + BN.
    """

    def __init__(self, in_planes: int, planes: int, stride: int, n: int, kind: str, init: str):
        super().__init__()
        convs = {  # (in, out, kernel, stride) of each convolution of the branch
            "basic": [(in_planes, planes, 3, stride), (planes, planes, 3, 1)],
            "bottleneck": [(in_planes, planes, 1, 1), (planes, planes, 3, stride), (planes, 4 * planes, 1, 1)],
        }[kind]
        kron = init == "wkp"
        layers = []
        for i, (cin, cout, k, s) in enumerate(convs):
            if i:
                layers.append(nn.ReLU())
            layers += [PHConv2d(cin, cout, k, n, stride=s, padding=k // 2, kron_weights=kron), nn.BatchNorm2d(cout)]
        self.branch = nn.Sequential(*layers)
        out = convs[-1][1]
        self.shortcut = (
            nn.Identity()
            if stride == 1 and in_planes == out
            else nn.Sequential(PHConv2d(in_planes, out, 1, n, stride=stride, kron_weights=kron), nn.BatchNorm2d(out))
        )
        self.gate = ResidualGate() if init == "phydi" else None

    def forward(self, x: Tensor) -> Tensor:
        if self.gate is None:
            return functional.relu(self.shortcut(x) + self.branch(x))
        return self.shortcut(x) + self.gate(functional.relu(self.branch(x)))


class PHResNet(nn.Module):
    """Input [batch, in_channels, H, W] (in_channels = 4 for n = 2, 4 and 3 for n = 3, also stored as
    `self.in_channels`); output logits [batch, num_classes].

    width_mult scales the four stage widths for reduced (cpu-profile) runs; each is rounded to the
    nearest multiple of n (at least n), so width_mult = 1 gives the paper's widths. channels_last runs
    every activation in torch.channels_last memory format (the same function; faster on CPU, see
    `python -m noneuclid.bench hypercomplex`).
    """

    def __init__(
        self, depth: int, n: int, init: str, num_classes: int = 10, width_mult: float = 1.0, channels_last: bool = False
    ):
        super().__init__()
        _choice("depth", depth, STAGES)
        _choice("n", n, WIDTHS)
        _choice("init", init, INITS)
        if not width_mult > 0:
            raise ValueError(f"width_mult must be > 0, got {width_mult}")
        kind, blocks = STAGES[depth]
        widths = [max(n, n * round(w * width_mult / n)) for w in WIDTHS[n]]
        self.in_channels = IN_CHANNELS[n]
        self.stem = nn.Sequential(
            PHConv2d(self.in_channels, widths[0], 3, n, padding=1, kron_weights=init == "wkp"),
            nn.BatchNorm2d(widths[0]),
            nn.ReLU(),
        )
        stages, in_planes = [], widths[0]
        for i, (planes, count) in enumerate(zip(widths, blocks)):
            stage = []
            for j in range(count):
                stage.append(PHBlock(in_planes, planes, 2 if i > 0 and j == 0 else 1, n, kind, init))
                in_planes = planes * EXPANSION[kind]
            stages.append(nn.Sequential(*stage))
        self.stages = nn.Sequential(*stages)
        self.head = nn.Linear(in_planes, num_classes)
        self.channels_last = channels_last

    def forward(self, x: Tensor) -> Tensor:
        if x.shape[1] != self.in_channels:
            raise ValueError(
                f"this PHResNet takes {self.in_channels} input channels (n=3: RGB; n=2, 4: a zero "
                f"channel prepended to RGB), got {x.shape[1]}"
            )
        if self.channels_last:  # the convolutions' outputs (and so every later activation) follow the input
            x = x.contiguous(memory_format=torch.channels_last)
        features = self.stages(self.stem(x))  # [batch, channels, H/8, W/8]
        return self.head(features.mean(dim=(2, 3)))

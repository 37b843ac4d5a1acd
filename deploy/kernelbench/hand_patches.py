"""The changes made by hand to KernelBench files before import, and only those.

Contract: HAND_PATCHES maps "level<L>/<stem>" to the exact text replacements that make a problem
judgeable; apply_hand_patches() applies them or raises HandPatchError when a file no longer
holds the text a patch expects (KernelBench changed: the patch must be re-read by a person, not
applied blindly). Every patch says why; the reason goes into the problem's description and
problems/kernelbench/README.md lists them.

The rules for a patch: (1) a problem whose output follows PyTorch's random stream or hidden
module state cannot be judged (no CUDA kernel can reproduce PyTorch's random draws), so the
randomness or the state becomes an input tensor that get_inputs draws and the kernel receives;
(2) a problem whose draw makes float32 itself meaningless at the bench shape (measured on a GPU
by check_problems.py: float32 PyTorch far outside any tolerance of the float64 oracle) gets a draw
in the regime the model is meant for; (3) a problem whose bench shape makes float32 meaningless
for every input (training-mode statistics over too few values) gets the smallest batch size at
which float32 agrees with float64. The computation itself is KernelBench's. Nothing else is
changed by hand.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Tuple


@dataclass(frozen=True)
class HandPatch:
    old: str  # exact text of KernelBench's file, replaced once
    new: str
    why: str  # one sentence for the description and the README


class HandPatchError(Exception):
    """A patch's `old` text is not in the file (KernelBench changed)."""


MAMBA2_DECAY = HandPatch(
    old="        self.A = nn.Parameter(torch.randn(batch_size, seq_length, n_heads))",
    new="        self.A = nn.Parameter(-torch.rand(batch_size, seq_length, n_heads))"
        "  # kjudge: was torch.randn",
    why="the decay A is drawn in (-1, 0] (Mamba2's A = -exp(A_log) is negative) instead of "
        "normal(0, 1): with positive A, exp of the cumulative sums reaches 1e20-1e22 at the "
        "bench shape and float32 PyTorch misses the float64 oracle by 88-171 x the tolerance "
        "(an H200, check_problems.py, 2026-11-27), so no float32 kernel could be judged; with "
        "A <= 0 float32 agrees to a relative L2 error of 6e-7")

HAND_PATCHES: Dict[str, List[HandPatch]] = {
    "level2/66_Matmul_Dropout_Softmax": [
        HandPatch(
            old="    def forward(self, x):",
            new="    def forward(self, x, dropout_u):",
            why="dropout's random numbers are an input: forward takes `dropout_u`, uniform "
                "[0, 1) of the matmul output's shape, and keeps an element where dropout_u >= p "
                "(scaled by 1 / (1 - p)), as nn.Dropout does in training mode with PyTorch's "
                "own random stream, which no kernel can reproduce"),
        HandPatch(
            old="        x = self.dropout(x)",
            new="        x = x * (dropout_u >= self.dropout.p).to(x.dtype) / (1.0 - self.dropout.p)"
                "  # kjudge: was self.dropout(x)",
            why=""),
        HandPatch(
            old="    return [torch.rand(batch_size, in_features)]",
            new="    return [torch.rand(batch_size, in_features), "
                "torch.rand(batch_size, out_features)]",
            why=""),
    ],
    "level3/33_VanillaRNN": [
        HandPatch(
            old="            self.hidden.copy_(initial_hidden)",
            new="            self.hidden = initial_hidden  # kjudge: was self.hidden.copy_(initial_hidden)",
            why="the given initial_hidden replaces the hidden state instead of being copied into "
                "a float32 tensor drawn at construction (the same values; the copy made the "
                "float64 reference round through float32 and failed on the meta device)"),
    ],
    "level3/35_LSTM": [
        HandPatch(
            old="    return [torch.rand(batch_size, sequence_length, input_size)]",
            new="    return [torch.rand(batch_size, sequence_length, input_size), "
                "torch.randn(num_layers, batch_size, hidden_size), "
                "torch.randn(num_layers, batch_size, hidden_size)]",
            why="h0 and c0 are inputs (normal(0, 1), as forward would draw them): forward drew "
                "them with torch.randn on every call when not given, so the output followed "
                "PyTorch's random stream, which no kernel can reproduce"),
    ],
    "level3/24_EfficientNetB2": [
        HandPatch(
            old="batch_size = 2\n",
            new="batch_size = 16  # kjudge: was 2\n",
            why="the batch size is 16 instead of 2 (rule 3): every MBConv block ends in "
                "training-mode BatchNorm after a global 1 x 1 pool, i.e. statistics over "
                "batch_size values per channel; over 2 values float32 PyTorch missed the "
                "float64 oracle by 13-20 x a tolerance of 5e-2 on two of three random draws at "
                "the bench shape (relative L2 error 0.6-0.8; a CPU, 2026-11-27), so no float32 "
                "kernel could be judged; at 16 its worst element is 0.10-0.16 x that tolerance "
                "on three draws (relative L2 error 4-6e-3)"),
    ],
    "level3/48_Mamba2ReturnY": [MAMBA2_DECAY],
    "level3/49_Mamba2ReturnFinalState": [MAMBA2_DECAY],
}


def apply_hand_patches(key: str, source: str) -> Tuple[str, List[str]]:
    """Source with the patches of `key` ("level<L>/<stem>") applied, and their reasons."""
    notes = []
    for patch in HAND_PATCHES.get(key, []):
        if source.count(patch.old) != 1:
            raise HandPatchError(
                f"hand patch for {key} expects exactly one {patch.old.strip()!r} in the file, "
                f"found {source.count(patch.old)}: KernelBench changed; update "
                "deploy/kernelbench/hand_patches.py after reading the new file")
        source = source.replace(patch.old, patch.new, 1)
        if patch.why:
            notes.append("changed by hand: " + patch.why)
    return source, notes

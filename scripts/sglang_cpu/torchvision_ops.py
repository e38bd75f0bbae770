"""Let PyPI's (CUDA-linked) torchvision import next to the CPU build of torch.

Copied by ``scripts/install_sglang.py`` into the SGLang environment's site-packages as
``responses_sglang_torchvision.py`` and armed by a ``.pth`` line, so it exists only there.

Why: torchvision 0.28's C++ operators (``_C.so``) link ``libtorch_cuda.so``, which the CPU torch
wheel does not have, so they do not load. torchvision guards every use of them with
``extension._has_ops()`` — except two unconditional ``torch.library.register_fake`` calls in
``torchvision/_meta_registrations.py`` (``torchvision::nms`` and ``torchvision::qnms``), which
raise ``RuntimeError: operator torchvision::nms does not exist`` and make ``import torchvision``
fail. SGLang imports torchvision at module load (multimodal processors), though a text model never
calls one of its operators.

What: just before ``torchvision._meta_registrations`` runs, and only when the operators did not
load, declare those two operators' schemas (no kernel). The fake registrations then succeed;
``_has_ops()`` stays False, so ``torchvision.ops.nms`` still raises torchvision's own "Couldn't
load custom C++ ops" error, and calling ``torch.ops.torchvision.nms`` directly raises for want of
a kernel. Nothing installed is edited. ``install()`` only adds an import hook (no torch import at
interpreter start-up).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

__all__ = ["install"]

_TARGET = "torchvision._meta_registrations"
# The schemas torchvision's C++ code declares (torchvision/csrc/ops/nms.cpp, quantized/qnms).
_SCHEMAS = {
    "nms": "nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    "qnms": "qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
}
_libraries: list[Any] = []  # torch.library.Library objects must stay alive to keep their defs


def _declare_missing_ops() -> None:
    import torch

    namespace = torch.ops.torchvision
    missing = [name for name in _SCHEMAS if not hasattr(namespace, name)]
    if not missing:
        return  # the C++ extension loaded: nothing to do
    library = torch.library.Library("torchvision", "FRAGMENT")
    for name in missing:
        library.define(_SCHEMAS[name])
    _libraries.append(library)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname == _TARGET:
            sys.meta_path.remove(self)  # once is enough
            _declare_missing_ops()
        return None  # the regular finders import the module


def install() -> None:
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())

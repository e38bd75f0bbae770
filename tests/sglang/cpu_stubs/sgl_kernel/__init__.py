"""A stand-in for ``sgl_kernel`` so that real SGLang 0.5.23 runs on a CPU-only machine in tests.

Why it exists: with ``SGLANG_USE_CPU_ENGINE=1`` SGLang imports a handful of CPU kernel names from
``sgl_kernel`` at module load (e.g. ``copy_all_layer_kv_cache_cpu``). The CPU build of sgl-kernel
is not on PyPI and cannot be built here, and the PyPI wheel is CUDA-only (``import sgl_kernel``
fails without ``libcuda.so.1``). For a dense model served with ``--attention-backend torch_native
--sampling-backend pytorch`` none of those kernels is ever *called* (../shared/notes/
sglang-on-cpu.md), so a module whose every attribute is a function that raises lets SGLang start
and serve while proving that: a call fails the test loudly instead of computing something else.

It reaches SGLang's scheduler and detokenizer child processes through ``PYTHONPATH`` (they inherit
the environment). It is used only by the SGLang test env (tox -e sglang) and the benchmark's CPU
mode, never installed. Honest limit: SGLang's real CPU kernels are not exercised.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

__version__ = "0.0.0+cpu-stand-in"
CALLED: list[str] = []  # names that were called (each call raises; tests can assert it stays empty)


class KernelCalled(NotImplementedError):
    """A kernel of the sgl_kernel stand-in was called: SGLang took a path the CPU test setup does
    not support (only torch_native attention and pytorch sampling on dense models are)."""


def _kernel(name: str) -> Callable[..., NoReturn]:
    def call(*args: Any, **kwargs: Any) -> NoReturn:
        CALLED.append(name)
        raise KernelCalled(
            f"sgl_kernel.{name} was called, but sgl_kernel is the CPU test stand-in "
            "(tests/sglang/cpu_stubs): serve with --attention-backend torch_native "
            "--sampling-backend pytorch on a dense model"
        )

    call.__name__ = call.__qualname__ = name
    return call


def __getattr__(name: str) -> Callable[..., NoReturn]:
    if name.startswith("__"):  # keep Python's protocols (pickling, introspection) honest
        raise AttributeError(name)
    return _kernel(name)

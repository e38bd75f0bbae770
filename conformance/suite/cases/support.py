"""What the cases share, while the cases of this folder move to their section modules: the
names of :mod:`conformance.sections.case_support`."""

from __future__ import annotations

from ...sections.case_support import *  # noqa: F403
from ...sections.case_support import __all__ as __all__

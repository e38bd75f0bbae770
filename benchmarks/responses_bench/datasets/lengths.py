"""Token-length distributions for synthetic prompts and outputs (sans-I/O).

The forms ``--input-tokens`` / ``--output-tokens`` take (the fields GuideLLM's synthetic data and
AIPerf's ``--synthetic-input-tokens-*`` use):

- ``N``: every draw is ``N``;
- ``LO-HI``: uniform over the integers ``LO..HI`` (inclusive);
- ``mean=M,stddev=S,min=LO,max=HI``: a normal draw of mean ``M`` and standard deviation ``S``,
  rounded and clamped into ``[LO, HI]`` (``stddev`` defaults to 0, ``min`` to the floor, ``max`` to
  none). ``stdev`` and ``std`` are accepted for ``stddev``.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

__all__ = ["MAX_TOKENS", "Lengths", "parse_lengths"]

MAX_TOKENS = 2_000_000
"""The most tokens a length option takes, and the most a draw gives: twice the largest context
window served today (1M tokens). A synthetic prompt is built word by word, so an unbounded length
(``--prompt-tokens 999999999999``) hung the run building its first prompt."""

_KEYS = {"mean": "mean", "stddev": "stddev", "stdev": "stddev", "std": "stddev"}


@dataclass(frozen=True, slots=True)
class Lengths:
    """A distribution of token counts; :meth:`draw` is a pure function of the RNG's state."""

    mean: float
    stddev: float = 0.0
    low: int = 1
    high: int | None = None
    uniform: bool = False  # LO-HI: uniform over [low, high]

    def draw(self, rng: random.Random) -> int:
        high = self.high
        if self.uniform:
            assert high is not None
            return rng.randint(self.low, high)
        value = round(rng.gauss(self.mean, self.stddev)) if self.stddev > 0 else round(self.mean)
        value = max(self.low, value)
        return min(MAX_TOKENS if high is None else high, value)

    @classmethod
    def fixed(cls, n: int) -> Lengths:
        return cls(float(n), low=n, high=n)

    def describe(self) -> str:
        if self.uniform:
            return f"{self.low}-{self.high}"
        if self.stddev == 0 and self.low == self.high:
            return str(self.low)
        high = "" if self.high is None else f",max={self.high}"
        return f"mean={self.mean:g},stddev={self.stddev:g},min={self.low}{high}"


def parse_lengths(text: str, flag: str, floor: int = 1) -> Lengths:
    """``N``, ``LO-HI`` or ``mean=…,stddev=…,min=…,max=…``; every value >= ``floor``.

    Raises ``ValueError`` with a one-line message naming ``flag``.
    """
    text = str(text).strip()
    if "=" in text:
        return _spec(text, flag, floor)
    try:
        low_text, dash, high_text = text.partition("-")
        low = int(low_text)
        high = int(high_text) if dash else low
    except ValueError:
        raise ValueError(
            f"{flag} {text!r}: expected N, LO-HI or mean=M,stddev=S,min=LO,max=HI"
        ) from None
    if not floor <= low <= high:
        raise ValueError(f"{flag} {text!r}: need {floor} <= LO <= HI")
    if high > MAX_TOKENS:
        raise ValueError(f"{flag} {text!r}: at most {MAX_TOKENS:,} tokens")
    if low == high:
        return Lengths.fixed(low)
    return Lengths((low + high) / 2, low=low, high=high, uniform=True)


def _spec(text: str, flag: str, floor: int) -> Lengths:
    fields: dict[str, float] = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        key = key.strip().lower()
        name = _KEYS.get(key, key if key in ("min", "max") else "")
        if not sep or not name:
            raise ValueError(f"{flag}: unknown field {key!r} (use mean, stddev, min, max)")
        try:
            number = float(value)
        except ValueError:
            raise ValueError(f"{flag}: {key}={value!r} is not a number") from None
        if not math.isfinite(number):
            raise ValueError(f"{flag}: {key}={value} is not a finite number")
        fields[name] = number
    if "mean" not in fields:
        raise ValueError(f"{flag} {text!r}: needs mean=M")
    mean, stddev = fields["mean"], fields.get("stddev", 0.0)
    low = int(fields.get("min", floor))
    high = int(fields["max"]) if "max" in fields else None
    if stddev < 0:
        raise ValueError(f"{flag} {text!r}: stddev must be >= 0")
    if low < floor or (high is not None and high < low):
        raise ValueError(f"{flag} {text!r}: need {floor} <= min <= max")
    if mean < low or (high is not None and mean > high):
        bounds = f"[{low}, {'∞' if high is None else high}]"
        raise ValueError(f"{flag} {text!r}: the mean must lie in [min, max] = {bounds}")
    if max(mean, low, high or 0) > MAX_TOKENS:
        raise ValueError(f"{flag} {text!r}: at most {MAX_TOKENS:,} tokens")
    return Lengths(mean, stddev, low, high)

"""Prices come from a TOML file the user supplies; kgb ships none it would vouch for.

    [models."claude-sonnet-4-5"]
    input = 3.00            # USD per million uncached input tokens      (required)
    output = 15.00          # USD per million output tokens              (required)
    cached_input = 0.30     # USD per million cache-read input tokens    (optional)
    cache_write = 3.75      # USD per million cache-write input tokens   (optional)
    aliases = ["sonnet"]    # other exact names of the same model        (optional)
    prefixes = ["claude-sonnet-4-5-"]  # any name starting with one      (optional)

Matching a logged model name, first rule that applies wins:
  1. exact: the name is a [models] key;
  2. alias: the name is in some model's `aliases`;
  3. dated: the name is a key or alias plus a date/version suffix: -YYYY-MM-DD, -YYYYMMDD,
     -MMDD, @YYYYMMDD (gpt-4o-2024-08-06, claude-3-5-sonnet-20241022, gpt-4-0613);
  4. prefix: the name starts with an entry of some model's `prefixes`; the longest one wins;
  5. the same four rules on the part after the last "/" (openai/gpt-4o, anthropic/claude-...).
Never a bare "starts with the key" rule: gpt-4o would then price gpt-4o-mini. A name that
matches nothing is unpriced: its cost is null, never 0."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from kgb.errors import BadInput
from kgb.jsonfiles import Bounds, read_toml

PRICE_KEYS = ("input", "cached_input", "output", "cache_write")
MODEL_KEYS = set(PRICE_KEYS) | {"aliases", "prefixes", "note"}
TOP_KEYS = {"models", "currency", "note", "as_of", "source"}
# Read through the bounded reader (threat 38); a non-finite price gets its own message below.
PRICING_BOUNDS = Bounds(max_bytes=4 << 20, max_depth=16, nonfinite=True)
_DATED = re.compile(r"^(?:-\d{4}-\d{2}-\d{2}|-\d{8}|-\d{4}|@\d{8})$")


@dataclass(frozen=True)
class ModelPrice:
    name: str  # the [models] key
    input: float  # USD per million tokens, each
    output: float
    cached_input: float | None  # None: not priced; calls that read the cache are unpriced
    cache_write: float | None
    aliases: tuple[str, ...] = ()
    prefixes: tuple[str, ...] = ()

    def cost(self, input: int, cached: int, cache_write: int, output: int) -> tuple[float, int]:
        """(USD for the token kinds that have a price, tokens of kinds that have none).

        A missing cached_input or cache_write price leaves those tokens unpriced — counted
        apart, never charged at 0 and never guessed at the full input price."""
        usd = (input * self.input + output * self.output) / 1_000_000
        unpriced = 0
        if self.cached_input is None:
            unpriced += cached
        else:
            usd += cached * self.cached_input / 1_000_000
        if self.cache_write is None:
            unpriced += cache_write
        else:
            usd += cache_write * self.cache_write / 1_000_000
        return usd, unpriced

    def to_dict(self) -> dict:
        return {"input": self.input, "cached_input": self.cached_input, "output": self.output,
                "cache_write": self.cache_write}


@dataclass(frozen=True)
class Match:
    price: ModelPrice
    rule: str  # exact | alias | dated | prefix, with "+provider" when a "x/" prefix was dropped


@dataclass(frozen=True)
class PriceBook:
    source: str
    models: tuple[ModelPrice, ...]
    note: str | None = None

    def match(self, model: str) -> Match | None:
        found = self._match(model)
        if found is None and "/" in model:
            found = self._match(model.rsplit("/", 1)[1])
            if found is not None:
                found = Match(found.price, found.rule + "+provider")
        return found

    def _match(self, name: str) -> Match | None:
        names = {m.name: m for m in self.models}
        aliases = {a: m for m in self.models for a in m.aliases}
        if name in names:
            return Match(names[name], "exact")
        if name in aliases:
            return Match(aliases[name], "alias")
        dated = [(len(k), m) for k, m in [*names.items(), *aliases.items()]
                 if name.startswith(k) and _DATED.match(name[len(k):])]
        if dated:
            return Match(max(dated, key=lambda d: d[0])[1], "dated")
        best: tuple[int, ModelPrice] | None = None
        for m in self.models:
            for p in m.prefixes:
                if name.startswith(p) and (best is None or len(p) > best[0]):
                    best = (len(p), m)
        return Match(best[1], "prefix") if best else None


def load_pricing(path: Path) -> PriceBook:
    """Read and validate a pricing TOML file. Raises BadInput with the key at fault."""
    data = read_toml(Path(path), PRICING_BOUNDS.max_bytes, "pricing file",
                     "pass a pricing TOML file (docs/cost.md)", PRICING_BOUNDS)
    unknown = set(data) - TOP_KEYS
    if unknown:
        raise BadInput(f"pricing file {path}: unknown top-level key(s) {sorted(unknown)}; "
                       f"expected {sorted(TOP_KEYS)}")
    if data.get("currency", "USD") != "USD":
        raise BadInput(f"pricing file {path}: currency must be USD (prices per million tokens)")
    models = data.get("models")
    if not isinstance(models, dict) or not models:
        raise BadInput(f"pricing file {path} has no [models.\"<name>\"] tables")
    book = PriceBook(str(path), tuple(_model(path, name, entry) for name, entry in models.items()),
                     data.get("note") if isinstance(data.get("note"), str) else None)
    _check_unique(path, book)
    return book


def _model(path: Path, name: str, entry: object) -> ModelPrice:
    where = f"pricing file {path}, model {name!r}"
    if not isinstance(entry, dict):
        raise BadInput(f"{where}: expected a table of prices")
    unknown = set(entry) - MODEL_KEYS
    if unknown:  # a typo such as "cached" would otherwise silently leave a price out
        raise BadInput(f"{where}: unknown key(s) {sorted(unknown)}; expected {sorted(MODEL_KEYS)}")
    prices: dict[str, float | None] = {}
    for key in PRICE_KEYS:
        value = entry.get(key)
        if value is None:
            if key in ("input", "output"):
                raise BadInput(f"{where}: `{key}` (USD per million tokens) is required")
            prices[key] = None
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value) or value < 0:
            raise BadInput(f"{where}: `{key}` must be a number >= 0, got {value!r}")
        prices[key] = float(value)
    names: dict[str, tuple[str, ...]] = {}
    for key in ("aliases", "prefixes"):
        value = entry.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise BadInput(f"{where}: `{key}` must be a list of non-empty strings")
        names[key] = tuple(value)
    assert prices["input"] is not None and prices["output"] is not None  # required above
    return ModelPrice(name, prices["input"], prices["output"], prices["cached_input"],
                      prices["cache_write"], names["aliases"], names["prefixes"])


def _check_unique(path: Path, book: PriceBook) -> None:
    """A name or prefix that points at two models would make the price depend on file order."""
    owner: dict[str, str] = {}
    for m in book.models:
        for n in (m.name, *m.aliases):
            if owner.setdefault(n, m.name) != m.name:
                raise BadInput(f"pricing file {path}: {n!r} names both {owner[n]!r} and {m.name!r}")
    prefix_owner: dict[str, str] = {}
    for m in book.models:
        for p in m.prefixes:
            if prefix_owner.setdefault(p, m.name) != m.name:
                raise BadInput(f"pricing file {path}: prefix {p!r} is claimed by both "
                               f"{prefix_owner[p]!r} and {m.name!r}")

"""The small Python project that `record.py`'s sessions work on: `stockroom`, an inventory tool.

`write_project(root, rng)` writes it under `root` (about forty files in `src/`, `tests/`,
`docs/`, `scripts/`, `data/`). Its tests pass with `python -m pytest -q`; a few modules are
deliberately not in `ruff format`'s style (single quotes, odd spacing), so the formatter has
something to change and leaves the rest byte for byte as it was. `data/catalog.csv` is larger
than the runtime's 16 KiB cap on shell output.
"""

# ruff: noqa: E501  (the project's unformatted module has a long line on purpose)

from __future__ import annotations

import random
from pathlib import Path

VERSION = "0.3.1"

FILES: dict[str, str] = {}

FILES[".gitignore"] = """\
__pycache__/
*.pyc
.pytest_cache/
.ruff_cache/
*.egg-info/
logs/
.capsule-home/
"""

FILES["README.md"] = """\
# stockroom

Track items, where they are and what they are worth.

    python -m stockroom.cli levels data/catalog.csv
    python -m stockroom.cli report data/catalog.csv --by location

## Layout

- `src/stockroom/`: the library (models, store, pricing, parser, report)
- `src/stockroom/api/`: a small HTTP-style API over the store
- `src/stockroom/db/`: SQLite persistence
- `tests/`: pytest suite (`python -m pytest -q`)
- `scripts/`: maintenance scripts (version bump, fixture regeneration)

## Development

Format with `ruff format`, run the tests with `python -m pytest -q`.
"""

FILES["pyproject.toml"] = f"""\
[project]
name = "stockroom"
version = "{VERSION}"
description = "Track items, where they are and what they are worth."
requires-python = ">=3.10"

[tool.pytest.ini_options]
pythonpath = ["src"]
testpaths = ["tests"]
addopts = "-p no:cacheprovider"

[tool.ruff]
line-length = 100
"""

FILES["CHANGELOG.md"] = """\
# Changelog

## 0.3.1
- Fix rounding of discounted prices.
- `Store.move` refuses unknown locations.

## 0.3.0
- Reports grouped by location.
- SQLite persistence (`stockroom.db`).

## 0.2.0
- CSV import with line numbers in errors.
"""

FILES["src/stockroom/__init__.py"] = f'''\
"""stockroom: track items, where they are and what they are worth."""

from .models import Item, Location, StockLevel
from .store import Store

__version__ = "{VERSION}"

__all__ = ["Item", "Location", "StockLevel", "Store", "__version__"]
'''

FILES["src/stockroom/errors.py"] = '''\
"""Errors raised by stockroom."""


class StockroomError(Exception):
    """Base class of every error stockroom raises."""


class UnknownItem(StockroomError):
    """An item id that the store does not hold."""

    def __init__(self, item_id: str) -> None:
        super().__init__(f"unknown item: {item_id}")
        self.item_id = item_id


class UnknownLocation(StockroomError):
    """A location the store does not know."""

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown location: {name}")
        self.name = name


class InsufficientStock(StockroomError):
    """Taking more than a location holds."""

    def __init__(self, item_id: str, wanted: int, held: int) -> None:
        super().__init__(f"{item_id}: wanted {wanted}, only {held} held")
        self.item_id = item_id
        self.wanted = wanted
        self.held = held
'''

FILES["src/stockroom/models.py"] = '''\
"""The data model: items, locations and stock levels."""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_NAME_LENGTH = 80


@dataclass(frozen=True)
class Item:
    """Something the stockroom holds."""

    item_id: str
    name: str
    unit_price: float
    tags: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.item_id:
            raise ValueError("item_id must not be empty")
        if len(self.name) > MAX_NAME_LENGTH:
            raise ValueError(f"name longer than {MAX_NAME_LENGTH} characters")
        if self.unit_price < 0:
            raise ValueError("unit_price must not be negative")

    def has_tag(self, tag: str) -> bool:
        return tag in self.tags


@dataclass(frozen=True)
class Location:
    """A shelf, a room or a warehouse."""

    name: str
    capacity: int = 1000

    def fits(self, quantity: int) -> bool:
        return 0 <= quantity <= self.capacity


@dataclass
class StockLevel:
    """How many of an item a location holds."""

    item: Item
    location: Location
    quantity: int = 0
    history: list[int] = field(default_factory=list)

    def adjust(self, delta: int) -> int:
        self.history.append(delta)
        self.quantity += delta
        return self.quantity

    @property
    def value(self) -> float:
        return round(self.quantity * self.item.unit_price, 2)
'''

FILES["src/stockroom/store.py"] = '''\
"""The store: every item, every location and what each location holds."""

from __future__ import annotations

from collections.abc import Iterator

from .errors import InsufficientStock, UnknownItem, UnknownLocation
from .models import Item, Location, StockLevel

DEFAULT_LOCATION = "main"
MAX_LOCATIONS = 64


class Store:
    """Items and their stock levels, by location."""

    def __init__(self) -> None:
        self.items: dict[str, Item] = {}
        self.locations: dict[str, Location] = {DEFAULT_LOCATION: Location(DEFAULT_LOCATION)}
        self.levels: dict[tuple[str, str], StockLevel] = {}

    def add_location(self, location: Location) -> None:
        if len(self.locations) >= MAX_LOCATIONS:
            raise ValueError("too many locations")
        self.locations[location.name] = location

    def add_item(self, item: Item, quantity: int = 0, where: str = DEFAULT_LOCATION) -> None:
        location = self._location(where)
        self.items[item.item_id] = item
        level = self.levels.setdefault((item.item_id, location.name), StockLevel(item, location))
        level.adjust(quantity)

    def remove_item(self, item_id: str) -> Item:
        item = self._item(item_id)
        for key in [k for k in self.levels if k[0] == item_id]:
            del self.levels[key]
        del self.items[item_id]
        return item

    def take(self, item_id: str, quantity: int, where: str = DEFAULT_LOCATION) -> int:
        level = self.levels.get((self._item(item_id).item_id, self._location(where).name))
        held = level.quantity if level else 0
        if quantity > held:
            raise InsufficientStock(item_id, quantity, held)
        return level.adjust(-quantity)

    def move(self, item_id: str, quantity: int, source: str, target: str) -> None:
        self.take(item_id, quantity, source)
        self.add_item(self._item(item_id), quantity, target)

    def find(self, text: str) -> list[Item]:
        needle = text.lower()
        return [item for item in self.items.values() if needle in item.name.lower()]

    def levels_of(self, item_id: str) -> Iterator[StockLevel]:
        self._item(item_id)
        return (level for key, level in self.levels.items() if key[0] == item_id)

    def total_quantity(self, item_id: str) -> int:
        return sum(level.quantity for level in self.levels_of(item_id))

    def total_value(self) -> float:
        return round(sum(level.value for level in self.levels.values()), 2)

    def _item(self, item_id: str) -> Item:
        try:
            return self.items[item_id]
        except KeyError:
            raise UnknownItem(item_id) from None

    def _location(self, name: str) -> Location:
        try:
            return self.locations[name]
        except KeyError:
            raise UnknownLocation(name) from None
'''

# Not in ruff format's style on purpose: single quotes and cramped spacing.
FILES["src/stockroom/pricing.py"] = """\
'''Prices: discounts, tax and rounding.'''

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_TAX_RATE = 0.2
MAX_DISCOUNT = 0.5


@dataclass(frozen=True)
class PriceRule:
    '''A discount for items carrying a tag.'''
    tag: str
    discount: float

    def applies_to(self, tags: tuple[str, ...]) -> bool:
        return self.tag in tags


def apply_discount(price: float, discount: float) -> float:
    if not 0 <= discount <= MAX_DISCOUNT:
        raise ValueError('discount out of range: %s' % discount)
    return round(price*(1-discount), 2)


def price_with_tax(price: float, rate: float = DEFAULT_TAX_RATE) -> float:
    return round(price*(1+rate), 2)


def best_rule(rules: list[PriceRule], tags: tuple[str, ...]) -> PriceRule | None:
    matching = [rule for rule in rules if rule.applies_to(tags)]
    return max(matching, key=lambda rule: rule.discount, default=None)


def final_price(price: float, tags: tuple[str, ...], rules: list[PriceRule], rate: float = DEFAULT_TAX_RATE) -> float:
    rule = best_rule(rules, tags)
    if rule is not None:
        price = apply_discount(price, rule.discount)
    return price_with_tax(price, rate)
"""

FILES["src/stockroom/parser.py"] = '''\
"""Reading items from CSV lines: `item_id,name,unit_price,quantity,location,tags`."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .errors import StockroomError
from .models import Item

FIELDS = ("item_id", "name", "unit_price", "quantity", "location", "tags")
TAG_SEPARATOR = "|"


class ParseError(StockroomError):
    """A line that is not a valid item."""

    def __init__(self, line_number: int, message: str) -> None:
        super().__init__(f"line {line_number}: {message}")
        self.line_number = line_number


@dataclass(frozen=True)
class Row:
    """One parsed line: the item, how many and where."""

    item: Item
    quantity: int
    location: str


def parse_line(fields: list[str], line_number: int) -> Row:
    if len(fields) != len(FIELDS):
        raise ParseError(line_number, f"expected {len(FIELDS)} fields, got {len(fields)}")
    item_id, name, price, quantity, location, tags = (f.strip() for f in fields)
    try:
        unit_price = float(price)
        count = int(quantity)
    except ValueError as exc:
        raise ParseError(line_number, str(exc)) from None
    tag_list = tuple(t for t in tags.split(TAG_SEPARATOR) if t)
    try:
        item = Item(item_id, name, unit_price, tag_list)
    except ValueError as exc:
        raise ParseError(line_number, str(exc)) from None
    return Row(item, count, location or "main")


def parse_csv(lines: Iterable[str]) -> Iterator[Row]:
    reader = csv.reader(lines)
    for number, fields in enumerate(reader, start=1):
        if number == 1 and fields and fields[0] == FIELDS[0]:
            continue
        if not fields or fields[0].startswith("#"):
            continue
        yield parse_line(fields, number)
'''

FILES["src/stockroom/report.py"] = '''\
"""Reports over a store: totals per location, per tag, and the text rendering."""

from __future__ import annotations

from collections import defaultdict

from .store import Store

COLUMN_WIDTH = 24


def summarise(store: Store, by: str = "location") -> dict[str, float]:
    totals: dict[str, float] = defaultdict(float)
    for (_, location), level in store.levels.items():
        if by == "location":
            totals[location] += level.value
        elif by == "tag":
            for tag in level.item.tags or ("untagged",):
                totals[tag] += level.value
        else:
            raise ValueError(f"cannot group by {by!r}")
    return {key: round(value, 2) for key, value in sorted(totals.items())}


def render_report(store: Store, by: str = "location") -> str:
    rows = summarise(store, by)
    lines = [f"{by:<{COLUMN_WIDTH}} value", "-" * (COLUMN_WIDTH + 10)]
    for key, value in rows.items():
        lines.append(f"{key:<{COLUMN_WIDTH}} {value:>9.2f}")
    lines.append(f"{'total':<{COLUMN_WIDTH}} {store.total_value():>9.2f}")
    return "\\n".join(lines)
'''

FILES["src/stockroom/config.py"] = '''\
"""Configuration: defaults, overridden by a TOML file and the environment."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path

DEFAULT_DB_PATH = "stockroom.sqlite"
DEFAULT_PAGE_SIZE = 50
ENV_PREFIX = "STOCKROOM_"


@dataclass(frozen=True)
class Config:
    """Settings of one run."""

    db_path: str = DEFAULT_DB_PATH
    page_size: int = DEFAULT_PAGE_SIZE
    tax_rate: float = 0.2
    currency: str = "EUR"


def load_config(path: Path | None = None, environ: dict[str, str] | None = None) -> Config:
    config = Config()
    if path is not None and path.exists():
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        config = replace(config, **data.get("stockroom", {}))
    env = os.environ if environ is None else environ
    if f"{ENV_PREFIX}DB_PATH" in env:
        config = replace(config, db_path=env[f"{ENV_PREFIX}DB_PATH"])
    if f"{ENV_PREFIX}PAGE_SIZE" in env:
        config = replace(config, page_size=int(env[f"{ENV_PREFIX}PAGE_SIZE"]))
    return config
'''

# Not in ruff format's style on purpose.
FILES["src/stockroom/utils.py"] = """\
'''Small helpers.'''

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar('T')

SLUG_PATTERN = re.compile(r'[^a-z0-9]+')
MAX_CHUNK = 1000


def slugify(text: str) -> str:
    return SLUG_PATTERN.sub('-', text.lower()).strip('-')


def chunked(items: Iterable[T], size: int) -> Iterator[list[T]]:
    if not 0 < size <= MAX_CHUNK:
        raise ValueError('size out of range')
    chunk: list[T] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk: yield chunk


def clamp(value: int, low: int, high: int) -> int:
    return max(low, min(value, high))
"""

FILES["src/stockroom/cli.py"] = '''\
"""Command line: `python -m stockroom.cli levels|report FILE`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .parser import ParseError, parse_csv
from .report import render_report
from .store import Store

EXIT_BAD_INPUT = 2


def build_store(path: Path) -> Store:
    store = Store()
    with path.open(encoding="utf-8") as handle:
        for row in parse_csv(handle):
            if row.location not in store.locations:
                from .models import Location

                store.add_location(Location(row.location))
            store.add_item(row.item, row.quantity, row.location)
    return store


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="stockroom")
    parser.add_argument("command", choices=["levels", "report"])
    parser.add_argument("file", type=Path)
    parser.add_argument("--by", default="location", choices=["location", "tag"])
    args = parser.parse_args(argv)
    try:
        store = build_store(args.file)
    except ParseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.command == "levels":
        for (item_id, location), level in sorted(store.levels.items()):
            print(f"{item_id:<10} {location:<12} {level.quantity:>6}")
    else:
        print(render_report(store, args.by))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
'''

FILES["src/stockroom/api/__init__.py"] = '''\
"""A small request/response API over a store."""

from .routes import ROUTES, dispatch

__all__ = ["ROUTES", "dispatch"]
'''

FILES["src/stockroom/api/routes.py"] = '''\
"""Routing: method and path to a handler."""

from __future__ import annotations

from collections.abc import Callable

from . import handlers

Handler = Callable[..., tuple[int, dict]]

ROUTES: dict[tuple[str, str], Handler] = {
    ("GET", "/items"): handlers.list_items,
    ("GET", "/items/{item_id}"): handlers.get_item,
    ("POST", "/items"): handlers.create_item,
    ("POST", "/items/{item_id}/take"): handlers.take_item,
    ("GET", "/report"): handlers.get_report,
}


def match(method: str, path: str) -> tuple[Handler, dict[str, str]] | None:
    parts = path.strip("/").split("/")
    for (route_method, pattern), handler in ROUTES.items():
        pattern_parts = pattern.strip("/").split("/")
        if route_method != method or len(pattern_parts) != len(parts):
            continue
        params: dict[str, str] = {}
        for expected, actual in zip(pattern_parts, parts, strict=True):
            if expected.startswith("{"):
                params[expected[1:-1]] = actual
            elif expected != actual:
                break
        else:
            return handler, params
    return None


def dispatch(store, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    found = match(method, path)
    if found is None:
        return 404, {"error": f"no route for {method} {path}"}
    handler, params = found
    return handler(store, body or {}, **params)
'''

FILES["src/stockroom/api/handlers.py"] = '''\
"""Handlers: each takes the store, the request body and path parameters."""

from __future__ import annotations

from ..errors import InsufficientStock, UnknownItem
from ..models import Item
from ..report import summarise
from .serializers import item_to_dict, level_to_dict

PAGE_LIMIT = 100


def list_items(store, body: dict) -> tuple[int, dict]:
    limit = min(int(body.get("limit", PAGE_LIMIT)), PAGE_LIMIT)
    items = sorted(store.items.values(), key=lambda item: item.item_id)[:limit]
    return 200, {"items": [item_to_dict(item) for item in items]}


def get_item(store, body: dict, item_id: str) -> tuple[int, dict]:
    try:
        levels = [level_to_dict(level) for level in store.levels_of(item_id)]
    except UnknownItem as exc:
        return 404, {"error": str(exc)}
    return 200, {"item": item_to_dict(store.items[item_id]), "levels": levels}


def create_item(store, body: dict) -> tuple[int, dict]:
    try:
        item = Item(body["item_id"], body["name"], float(body["unit_price"]))
    except (KeyError, ValueError) as exc:
        return 400, {"error": f"bad item: {exc}"}
    store.add_item(item, int(body.get("quantity", 0)))
    return 201, {"item": item_to_dict(item)}


def take_item(store, body: dict, item_id: str) -> tuple[int, dict]:
    try:
        left = store.take(item_id, int(body.get("quantity", 1)))
    except UnknownItem as exc:
        return 404, {"error": str(exc)}
    except InsufficientStock as exc:
        return 409, {"error": str(exc)}
    return 200, {"item_id": item_id, "left": left}


def get_report(store, body: dict) -> tuple[int, dict]:
    return 200, {"totals": summarise(store, body.get("by", "location"))}
'''

FILES["src/stockroom/api/serializers.py"] = '''\
"""Plain dictionaries for API responses."""

from __future__ import annotations

from ..models import Item, StockLevel


def item_to_dict(item: Item) -> dict:
    return {
        "item_id": item.item_id,
        "name": item.name,
        "unit_price": item.unit_price,
        "tags": list(item.tags),
    }


def level_to_dict(level: StockLevel) -> dict:
    return {
        "location": level.location.name,
        "quantity": level.quantity,
        "value": level.value,
    }
'''

FILES["src/stockroom/api/auth.py"] = '''\
"""API keys: a key grants read or write access."""

from __future__ import annotations

import hashlib
import hmac

TOKEN_BYTES = 32
READ = "read"
WRITE = "write"


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def check_key(key: str, stored_hash: str) -> bool:
    return hmac.compare_digest(hash_key(key), stored_hash)


def allowed(scope: str, method: str) -> bool:
    if method == "GET":
        return scope in (READ, WRITE)
    return scope == WRITE
'''

FILES["src/stockroom/db/__init__.py"] = '''\
"""SQLite persistence for a store."""

from .connection import connect
from .queries import load_store, save_store

__all__ = ["connect", "load_store", "save_store"]
'''

FILES["src/stockroom/db/connection.py"] = '''\
"""Opening the database and bringing its schema up to date."""

from __future__ import annotations

import sqlite3

from .migrations import migrate

BUSY_TIMEOUT_MS = 5000


def connect(path: str = ":memory:") -> sqlite3.Connection:
    con = sqlite3.connect(path)
    con.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    con.execute("PRAGMA foreign_keys = ON")
    migrate(con)
    return con
'''

FILES["src/stockroom/db/migrations.py"] = '''\
"""Schema migrations, applied in order; `user_version` says how far a database is."""

from __future__ import annotations

import sqlite3

MIGRATIONS = [
    """CREATE TABLE items (
        item_id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        unit_price REAL NOT NULL,
        tags TEXT NOT NULL DEFAULT ''
    )""",
    """CREATE TABLE levels (
        item_id TEXT NOT NULL REFERENCES items(item_id) ON DELETE CASCADE,
        location TEXT NOT NULL,
        quantity INTEGER NOT NULL,
        PRIMARY KEY (item_id, location)
    )""",
    "CREATE INDEX levels_by_location ON levels(location)",
]


def schema_version(con: sqlite3.Connection) -> int:
    return con.execute("PRAGMA user_version").fetchone()[0]


def migrate(con: sqlite3.Connection) -> int:
    version = schema_version(con)
    for number, statement in enumerate(MIGRATIONS[version:], start=version + 1):
        con.execute(statement)
        con.execute(f"PRAGMA user_version = {number}")
    con.commit()
    return schema_version(con)
'''

FILES["src/stockroom/db/queries.py"] = '''\
"""Saving a store to the database and loading it back."""

from __future__ import annotations

import sqlite3

from ..models import Item, Location
from ..store import Store

BATCH_SIZE = 500


def save_store(con: sqlite3.Connection, store: Store) -> int:
    con.execute("DELETE FROM levels")
    con.execute("DELETE FROM items")
    con.executemany(
        "INSERT INTO items VALUES (?, ?, ?, ?)",
        [(i.item_id, i.name, i.unit_price, "|".join(i.tags)) for i in store.items.values()],
    )
    rows = [(k[0], k[1], level.quantity) for k, level in store.levels.items()]
    for start in range(0, len(rows), BATCH_SIZE):
        con.executemany("INSERT INTO levels VALUES (?, ?, ?)", rows[start : start + BATCH_SIZE])
    con.commit()
    return len(rows)


def load_store(con: sqlite3.Connection) -> Store:
    store = Store()
    for item_id, name, price, tags in con.execute("SELECT * FROM items ORDER BY item_id"):
        store.items[item_id] = Item(item_id, name, price, tuple(t for t in tags.split("|") if t))
    for item_id, location, quantity in con.execute("SELECT * FROM levels"):
        if location not in store.locations:
            store.add_location(Location(location))
        store.add_item(store.items[item_id], quantity, location)
    return store
'''

FILES["tests/conftest.py"] = """\
import pytest

from stockroom import Item, Location, Store


@pytest.fixture
def store() -> Store:
    store = Store()
    store.add_location(Location("shelf-a", capacity=50))
    store.add_item(Item("bolt", "Hex bolt M6", 0.12, ("hardware",)), 400)
    store.add_item(Item("nut", "Hex nut M6", 0.05, ("hardware",)), 250, "shelf-a")
    store.add_item(Item("glue", "Wood glue 250ml", 4.5, ("consumable",)), 12)
    return store
"""

FILES["tests/test_models.py"] = """\
import pytest

from stockroom.models import MAX_NAME_LENGTH, Item, Location, StockLevel


def test_item_rejects_negative_price():
    with pytest.raises(ValueError):
        Item("x", "X", -1.0)


def test_item_rejects_long_names():
    with pytest.raises(ValueError):
        Item("x", "n" * (MAX_NAME_LENGTH + 1), 1.0)


def test_location_fits():
    assert Location("a", capacity=10).fits(10)
    assert not Location("a", capacity=10).fits(11)


def test_stock_level_value_and_history():
    level = StockLevel(Item("x", "X", 2.5), Location("a"))
    level.adjust(4)
    level.adjust(-1)
    assert level.quantity == 3
    assert level.value == 7.5
    assert level.history == [4, -1]
"""

FILES["tests/test_store.py"] = """\
import pytest

from stockroom.errors import InsufficientStock, UnknownItem, UnknownLocation


def test_take_and_totals(store):
    assert store.take("bolt", 100) == 300
    assert store.total_quantity("bolt") == 300


def test_take_too_many(store):
    with pytest.raises(InsufficientStock):
        store.take("glue", 13)


def test_move_between_locations(store):
    store.move("bolt", 40, "main", "shelf-a")
    assert store.total_quantity("bolt") == 400
    assert {level.location.name for level in store.levels_of("bolt")} == {"main", "shelf-a"}


def test_move_to_unknown_location(store):
    with pytest.raises(UnknownLocation):
        store.move("bolt", 1, "main", "attic")


def test_find_is_case_insensitive(store):
    assert [item.item_id for item in store.find("HEX")] == ["bolt", "nut"]


def test_remove_item(store):
    store.remove_item("nut")
    with pytest.raises(UnknownItem):
        store.total_quantity("nut")


def test_total_value(store):
    assert store.total_value() == 114.5
"""

FILES["tests/test_pricing.py"] = """\
import pytest

from stockroom.pricing import PriceRule, apply_discount, final_price, price_with_tax


def test_apply_discount_rounds():
    assert apply_discount(9.99, 0.1) == 8.99


def test_discount_out_of_range():
    with pytest.raises(ValueError):
        apply_discount(10.0, 0.9)


def test_price_with_tax():
    assert price_with_tax(10.0) == 12.0


def test_final_price_takes_the_best_rule():
    rules = [PriceRule("sale", 0.1), PriceRule("sale", 0.25), PriceRule("other", 0.5)]
    assert final_price(100.0, ("sale",), rules, rate=0.0) == 75.0
"""

FILES["tests/test_parser.py"] = """\
import pytest

from stockroom.parser import ParseError, parse_csv


def test_parse_csv_skips_header_and_comments():
    lines = [
        "item_id,name,unit_price,quantity,location,tags",
        "# a comment",
        "bolt,Hex bolt,0.12,10,main,hardware|metric",
    ]
    rows = list(parse_csv(lines))
    assert len(rows) == 1
    assert rows[0].item.tags == ("hardware", "metric")
    assert rows[0].quantity == 10


def test_parse_error_names_the_line():
    with pytest.raises(ParseError) as info:
        list(parse_csv(["bolt,Hex bolt,cheap,10,main,"]))
    assert info.value.line_number == 1


def test_empty_location_is_main():
    (row,) = parse_csv(["nut,Nut,0.05,3,,"])
    assert row.location == "main"
"""

FILES["tests/test_report.py"] = """\
from stockroom.report import render_report, summarise


def test_summarise_by_location(store):
    assert summarise(store) == {"main": 102.0, "shelf-a": 12.5}


def test_summarise_by_tag(store):
    assert summarise(store, by="tag") == {"consumable": 54.0, "hardware": 60.5}


def test_render_report_ends_with_total(store):
    assert render_report(store).splitlines()[-1].split() == ["total", "114.50"]
"""

FILES["tests/test_utils.py"] = """\
import pytest

from stockroom.utils import chunked, clamp, slugify


def test_slugify():
    assert slugify("Hex Bolt, M6!") == "hex-bolt-m6"


def test_chunked():
    assert list(chunked(range(5), 2)) == [[0, 1], [2, 3], [4]]


def test_chunked_rejects_zero():
    with pytest.raises(ValueError):
        list(chunked([1], 0))


def test_clamp():
    assert clamp(12, 0, 10) == 10
    assert clamp(-3, 0, 10) == 0
"""

FILES["tests/test_api.py"] = """\
from stockroom.api import dispatch


def test_list_and_get(store):
    status, body = dispatch(store, "GET", "/items")
    assert status == 200
    assert [item["item_id"] for item in body["items"]] == ["bolt", "glue", "nut"]
    status, body = dispatch(store, "GET", "/items/nut")
    assert status == 200
    assert body["levels"] == [{"location": "shelf-a", "quantity": 250, "value": 12.5}]


def test_take_conflict(store):
    status, _ = dispatch(store, "POST", "/items/glue/take", {"quantity": 50})
    assert status == 409


def test_unknown_route(store):
    assert dispatch(store, "DELETE", "/items")[0] == 404
"""

FILES["tests/test_db.py"] = """\
from stockroom.db import connect, load_store, save_store
from stockroom.db.migrations import MIGRATIONS, schema_version


def test_migrations_run_once():
    con = connect()
    assert schema_version(con) == len(MIGRATIONS)


def test_round_trip(store):
    con = connect()
    assert save_store(con, store) == 3
    loaded = load_store(con)
    assert loaded.total_value() == store.total_value()
"""

FILES["docs/index.md"] = """\
# stockroom documentation

- [Usage](usage.md): the command line and the library
- [API](api.md): routes and their responses

stockroom keeps items, locations and stock levels in memory and, optionally, in SQLite.
"""

FILES["docs/usage.md"] = """\
# Usage

## Command line

    python -m stockroom.cli levels data/catalog.csv
    python -m stockroom.cli report data/catalog.csv --by tag

`levels` prints one line per item and location; `report` prints the value held per
location (or per tag) and the total.

## Library

```python
from stockroom import Item, Store

store = Store()
store.add_item(Item("bolt", "Hex bolt M6", 0.12), 400)
store.take("bolt", 25)
```

Prices and discounts live in `stockroom.pricing`: `final_price(price, tags, rules)` applies
the best matching `PriceRule`, then tax (`DEFAULT_TAX_RATE`).
"""

FILES["docs/api.md"] = """\
# API

| method | path | response |
|---|---|---|
| GET | /items | `{"items": [...]}` (at most `PAGE_LIMIT`) |
| GET | /items/{item_id} | the item and its levels, or 404 |
| POST | /items | 201 and the item, or 400 |
| POST | /items/{item_id}/take | what is left, 404 or 409 |
| GET | /report | totals per location (`by=tag` for tags) |

Keys (`stockroom.api.auth`) grant `read` or `write`.
"""

FILES["scripts/bump_version.py"] = '''\
"""Bump the patch version in pyproject.toml and src/stockroom/__init__.py."""

import re
from pathlib import Path

FILES = [Path("pyproject.toml"), Path("src/stockroom/__init__.py")]
PATTERN = re.compile(r'(version\\s*=\\s*"|__version__ = ")(\\d+)\\.(\\d+)\\.(\\d+)(")')


def bump(match: re.Match) -> str:
    major, minor, patch = (int(match.group(i)) for i in (2, 3, 4))
    return f"{match.group(1)}{major}.{minor}.{patch + 1}{match.group(5)}"


for path in FILES:
    text = path.read_text(encoding="utf-8")
    path.write_text(PATTERN.sub(bump, text, count=1), encoding="utf-8")
    print(f"bumped {path}")
'''

FILES["scripts/sort_catalog.py"] = '''\
"""Sort data/catalog.csv by item id, keeping the header first (rewrites the file)."""

from pathlib import Path

path = Path("data/catalog.csv")
header, *rows = path.read_text(encoding="utf-8").splitlines()
rows.sort(key=lambda row: row.split(",", 1)[0])
path.write_text("\\n".join([header, *rows]) + "\\n", encoding="utf-8")
print(f"sorted {len(rows)} rows")
'''

FILES["data/locations.json"] = """\
{
  "main": {"capacity": 1000},
  "shelf-a": {"capacity": 50},
  "shelf-b": {"capacity": 50},
  "cellar": {"capacity": 400}
}
"""

WORDS = [
    "hex", "bolt", "nut", "washer", "screw", "hinge", "bracket", "glue", "tape", "clamp",
    "drill", "bit", "saw", "blade", "rivet", "spring", "chain", "hook", "latch", "pin",
]  # fmt: skip
LOCATIONS = ["main", "shelf-a", "shelf-b", "cellar"]
TAGS = ["hardware", "metric", "imperial", "consumable", "tool", "sale"]


def catalog(rng: random.Random, rows: int = 420) -> str:
    """An unsorted CSV catalogue, about 20 KB (above the 16 KiB shell output cap)."""
    lines = ["item_id,name,unit_price,quantity,location,tags"]
    ids = rng.sample(range(10_000, 99_999), rows)
    for number in ids:
        name = " ".join(w.capitalize() for w in rng.sample(WORDS, 2))
        tags = "|".join(rng.sample(TAGS, rng.randint(0, 2)))
        lines.append(
            f"i{number},{name} {rng.randint(2, 40)}mm,{rng.randint(1, 9999) / 100:.2f},"
            f"{rng.randint(0, 500)},{rng.choice(LOCATIONS)},{tags}"
        )
    return "\n".join(lines) + "\n"


def write_project(root: Path, rng: random.Random) -> list[str]:
    """Write the project under `root`; return the paths written, relative to it."""
    files = dict(FILES)
    files["data/catalog.csv"] = catalog(rng)
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return sorted(files)

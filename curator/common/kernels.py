"""Compiled kernels that numba's disk cache serves only while nothing they run has changed.

`build` compiles a copy of a kernel template, and of every compiled function it reaches, under
names that carry a digest of the package's sources: an edit anywhere gives new names. A
compiled function from outside the package (the move code of a rule family an installed
package adds) brings the sources of its own package into the digest as well.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import os
import re
import sys
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast, overload

import numba
from numba.core.dispatcher import Dispatcher

PACKAGE = Path(__file__).resolve().parents[1]
"""The curator package: every kernel's name carries a digest of all its sources."""

Bindings = dict[str, Callable[..., Any]]
LONGEST_LABEL = 100
"""Longest part of a copy's name that names the functions bound to its slots; a longer one
is replaced by a digest of it (numba names cache files after the function)."""


class Slot:
    """A module-level name that kernel templates call and `build` binds (e.g. `children`).

    numba keys a cached function by its own file and name alone: a kernel taking a compiled
    function as an argument gets a new key in every process, and one calling another file's
    function by name keeps its entry when that file changes. A slot is bound per family
    instead, and the copy is named after the functions bound to it.
    """

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Slot({self.name!r})"

    def __call__(self, *args: Any) -> Any:
        """Only a compiled copy calls what is bound to a slot; the slot itself is never called."""
        raise TypeError(f"slot {self.name!r} is called only in a kernel built with it bound")


@dataclass(frozen=True, eq=False)
class Template:
    """A kernel's Python function and numba options; compiled only through `build`."""

    py_func: types.FunctionType
    options: dict[str, Any] = field(default_factory=dict)

    def __call__(self, *args: Any) -> Any:
        raise TypeError(f"{self.py_func.__qualname__} is a kernel template: call build(...) on it")


@overload
def kernel(py_func: Callable[..., Any], **options: Any) -> Template: ...
@overload
def kernel(py_func: None = None, **options: Any) -> Callable[[Callable[..., Any]], Template]: ...
def kernel(py_func: Callable[..., Any] | None = None, **options: Any
           ) -> Template | Callable[[Callable[..., Any]], Template]:
    """Decorator: mark a function as a kernel template (options as for `numba.njit`)."""
    if py_func is None:
        return lambda func: Template(cast(types.FunctionType, func), options)
    return Template(cast(types.FunctionType, py_func), options)


@dataclass(frozen=True)
class _Copy:
    """A compiled copy; `named` when every function it reaches is found again by its name
    (only then can a name tell its cache entries apart), `files` the sources it reaches."""

    dispatcher: Dispatcher
    named: bool
    files: frozenset[Path]


_built: dict[tuple[Any, ...], _Copy] = {}
_copied: dict[int, tuple[Dispatcher, _Copy]] = {}


def build(template: Template, **bindings: Callable[..., Any]) -> Dispatcher:
    """The compiled copy of `template` with its `Slot` names bound, cached on disk under a
    name of its own: template name, bound function names, digest of every source it reaches."""
    skip_blas_probe()
    return _build(template, bindings).dispatcher


def _build(template: Template, bindings: Bindings) -> _Copy:
    key = (template, *sorted(bindings.items(), key=lambda item: item[0]))
    if key not in _built:
        func = template.py_func
        scope, callees = _scope(func, bindings)
        bound = sorted((name, _qualified(value)) for name, value in bindings.items())
        label = "".join("__" + re.sub(r"\W", "_", qualified) for _, qualified in bound)
        if len(label) > LONGEST_LABEL:  # the cache's file names must stay within the file system's
            label = "__" + hashlib.sha256(label.encode()).hexdigest()[:16]
        _built[key] = _compile(func, scope, callees, template.options, label, repr(bound),
                               named=_importable(template, func))
    return _built[key]


def _copy(dispatcher: Dispatcher) -> _Copy:
    """A copy of a compiled function a kernel calls, itself calling copies (once per process)."""
    entry = _copied.get(id(dispatcher))
    if entry is None:
        func = cast(types.FunctionType, dispatcher.py_func)
        scope, callees = _scope(func, {})
        options = {k: v for k, v in dispatcher.targetoptions.items() if k != "nopython"}
        entry = _copied[id(dispatcher)] = (dispatcher, _compile(
            func, scope, callees, options, "", "", named=_importable(dispatcher, func)))
    return entry[1]


def _scope(func: types.FunctionType, bindings: Bindings) -> tuple[dict[str, Any], list[_Copy]]:
    """`func`'s globals with every compiled function it names replaced by its copy."""
    scope = dict(func.__globals__)
    callees = []
    for name in _names(func.__code__):
        value = bindings.get(name, scope.get(name))
        if isinstance(value, Slot):
            raise TypeError(f"{func.__qualname__}: nothing bound to {name!r}")
        if isinstance(value, Template):
            callees.append(_build(value, bindings))
        elif isinstance(value, Dispatcher):
            callees.append(_copy(value))
        else:
            continue
        scope[name] = callees[-1].dispatcher
    return scope, callees


def _names(code: types.CodeType) -> Iterator[str]:
    """The global names `code` and the code nested in it read."""
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


def _compile(func: types.FunctionType, scope: dict[str, Any], callees: list[_Copy],
             options: dict[str, Any], label: str, salt: str, named: bool) -> _Copy:
    files = frozenset({Path(func.__code__.co_filename).resolve()}).union(*(c.files for c in callees))
    named = named and all(c.named for c in callees) and all(f.is_file() for f in files)
    digest = hashlib.sha256(f"{salt}\0{_sources_digest(files)}".encode()).hexdigest()[:20]
    copy = types.FunctionType(func.__code__, scope, func.__name__, func.__defaults__, func.__closure__)
    copy.__qualname__ = f"{func.__qualname__}{label}__{digest}"
    copy.__module__ = func.__module__
    copy.__doc__ = func.__doc__
    dispatcher = numba.njit(cache=named, **options)(copy)
    if named:
        _prune(dispatcher, f"{func.__qualname__}{label}", copy.__qualname__)
    return _Copy(dispatcher, named, files)


def _qualified(value: Any) -> str:
    func = getattr(value, "py_func", value)
    return f"{func.__module__}.{func.__qualname__}"


def _importable(value: Any, func: types.FunctionType) -> bool:
    """Whether `value` is what its module holds under `func`'s name (a closure is not)."""
    if "<locals>" in func.__qualname__:
        return False
    try:
        found: Any = importlib.import_module(func.__module__)
        for part in func.__qualname__.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        return False
    return found is value


@functools.cache
def _package_digest() -> str:
    """sha256 over the package's sources (names and contents), read once per process."""
    return _digest(sorted(PACKAGE.rglob("*.py")))


def _sources_digest(files: frozenset[Path]) -> str:
    """sha256 over the package's sources and those of the other packages `files` belong to
    (names and contents): a rule family an installed package adds is compiled from there."""
    outside = sorted({source for path in files if not path.is_relative_to(PACKAGE)
                      for source in _sources_beside(path)})
    return _digest(outside, _package_digest()) if outside else _package_digest()


@functools.cache
def _sources_beside(path: Path) -> tuple[Path, ...]:
    """The sources a compiled function of the file `path` may depend on: every module of the
    top-level package holding it (numba freezes the globals a function reads, which may
    come from any of them), or the file alone if it is a module of its own."""
    root = None
    folder = path.parent
    while (folder / "__init__.py").is_file():
        root, folder = folder, folder.parent
    if root is None:
        return (path,)
    return tuple(sorted(root.rglob("*.py")))


def _digest(paths: Sequence[Path], start: str = "") -> str:
    sha = hashlib.sha256(start.encode())
    for path in paths:
        name = path.relative_to(PACKAGE) if path.is_relative_to(PACKAGE) else path
        sha.update(f"{name}\0".encode())
        sha.update(path.read_bytes() if path.is_file() else b"")
        sha.update(b"\0")
    return sha.hexdigest()


def _prune(dispatcher: Any, base: str, current: str) -> None:
    """Remove the cache files of `base` (a copy's name less its digest) of other digests,
    unless this digest's entry is there already (it was done when the entry was written).

    Reads where numba keeps this function's cache from numba internals; does nothing if
    they change."""
    try:
        if os.path.exists(dispatcher._cache._cache_file._index_path):
            return
        directory = dispatcher._cache._cache_path
        stem = Path(dispatcher._cache._impl.locator._py_file).stem
        entries = os.listdir(directory)
    except (AttributeError, OSError):
        return
    older = re.compile(re.escape(f"{stem}.{base}__") + r"[0-9a-f]{20}-")
    keep = f"{stem}.{current}-"
    for entry in entries:
        if older.match(entry) and not entry.startswith(keep):
            try:
                os.unlink(os.path.join(directory, entry))
            except OSError:
                pass  # removed by another process meanwhile, or a read-only cache


class _Hidden:
    """An import finder under which the modules `name` and `name.*` are not installed."""

    def __init__(self, name: str) -> None:
        self.name = name

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: Any = None) -> None:
        if fullname == self.name or fullname.startswith(self.name + "."):
            raise ModuleNotFoundError(f"{fullname} is hidden", name=fullname)


@functools.cache
def skip_blas_probe() -> None:
    """Load numba's array functions as if SciPy's BLAS were missing: they import scipy.linalg
    (about 0.2 s) only to probe for BLAS, which no curator kernel calls.

    numba then takes its path for a machine without SciPy, which only makes np.correlate and
    np.convolve of floats loop instead of calling BLAS, in this process. Done only for the
    numba version it was checked on and before numba loads them; otherwise numba probes."""
    if numba.version_info[:2] != (0, 68) or "numba.np.arraymath" in sys.modules:
        return
    hidden = _Hidden("scipy.linalg")
    sys.meta_path.insert(0, hidden)
    try:
        importlib.import_module("numba.np.arraymath")
    finally:
        sys.meta_path.remove(hidden)

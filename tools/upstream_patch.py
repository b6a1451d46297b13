#!/usr/bin/env python3
# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Upstream patches: each ledger fix as a change to upstream Optax's tree.

A fix of ledger.toml that upstream still needs is offered upstream as a
patch, stored in ``upstream_patches/<fix id>.toml``. The file holds only
lines written here and where they go, never upstream's own lines: no
context and no removed lines are committed, and the real diff is made at
run time from an upstream tree. Its fields::

  fix = "rprop-update-lag"     # the ledger id (the file's stem)
  base = "2edbcbe2..."         # the upstream commit it was written against
  subject = "..."              # the commit's subject, in upstream's style
  message = '''...'''          # the commit's body (optional)
  description = '''...'''      # the pull request's text: the bug, its
                               # cause in upstream's code, why this change
                               # (and not a competing proposal)
  references = [{ref = "#1746", kind = "pull", note = "..."}]
                               # an open pull request making the same
                               # change adds review_first = true and
                               # differs = "how this patch differs"
  depends = ["other-fix"]      # patches this one applies on top of
  why_depends = "..."          # what it takes from them (with depends)

  [test]                       # where the reproducer goes upstream
  source = "upstream_tests/rprop_update_lag_test.py"
  into = "optax/_src/transform_test.py"
  class = "ScaleByRpropTest"   # omit to add the reproducer's class whole
  methods = ["test_..."]       # omit for all its test methods
  after = "test_scale"         # the method (with class) or the top-level
                               # def or class (without) to place it after;
                               # omit for the class's (or file's) end. Two
                               # patches placing tests in one file take
                               # different places, so that their branches
                               # merge without a conflict

  [[edit]]                     # one span of an upstream file, replaced
  file = "optax/_src/transform.py"
  scope = "scale_by_rprop.update_fn"
  line = 7                     # the span's first line, 1 being the
                               # scope's def (or class) line; for the
                               # module scope "", the file's first line
  replaced = 2                 # the lines replaced (0: insert before line)
  sha256 = "0f3a..."           # of the replaced lines; for an insertion,
                               # of the lines around it (drift check)
  text = '''...'''             # the lines written here

  [[edit]]                     # a new upstream file
  file = "optax/_src/foo.py"
  create = true
  text = '''...'''             # upstream's licence header is put on top

An edit is located by its scope (a dotted path of ``def`` and ``class``
names, found with ``ast``) and checked by its hash. Where upstream has moved
the lines within the scope, the one span of the scope with the same hash is
taken (the edit has *moved*); where there is none, or more than one, or the
scope is gone, the patch is *stale* and does not apply.

The reproducer is the ledger's own test (upstream_tests/, written in
upstream's test style and importing only names upstream has): ``[test]``
places its test methods at the end of a class of an upstream test file,
adding the imports that file lacks and the module-level helpers the methods
use, or adds its class to a file, or makes a new test file of it with
upstream's licence header.

Usage::

  python -m tools.upstream_patch record FIX --base PRISTINE --modified TREE
      [--subject S] [--test-into FILE [--test-class NAME]]
  python -m tools.upstream_patch diff FIX --upstream-tree TREE [--no-test]
  python -m tools.upstream_patch apply FIX [FIX ...] --upstream-tree TREE
      --into DIR [--no-test | --test-only]
  python -m tools.upstream_patch check [--upstream-tree TREE]

``record`` writes the patch of the differences between two upstream trees
(the edits of one fix made by hand in a copy of upstream's tree), keeping
the ``[test]`` and messages of an existing patch file. ``diff`` prints the
unified diff the patch makes in a tree (dependencies applied first, not
shown). ``apply`` copies a tree and applies patches to the copy. ``check``
validates every patch file and, with a tree, says of each whether it
applies (``stale`` names the edits that no longer do).
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import datetime
import difflib
import hashlib
import pathlib
import re
import shutil
import sys
import tomllib
from typing import Any, Iterable, Optional, Sequence

REPO = pathlib.Path(__file__).resolve().parent.parent
PATCHES = REPO / 'upstream_patches'

_ID = re.compile(r'^[a-z0-9]+(-[a-z0-9]+)*$')
_HEX = re.compile(r'^[0-9a-f]{7,40}$')
_FIELDS = {'fix', 'base', 'subject', 'message', 'description',
           'references', 'depends', 'why_depends', 'test', 'edit'}
_REF_KINDS = ('issue', 'pull')
_REF_FIELDS = {'ref', 'kind', 'note', 'review_first', 'differs'}
# Words of this repository that a text offered upstream must not use.
_FORK_WORDING = re.compile(r'\bfork(s|ed)?\b|upstream_tests/', re.I)
_EDIT_FIELDS = {'file', 'scope', 'line', 'replaced', 'sha256', 'text',
                'create'}
_TEST_FIELDS = {'source', 'into', 'class', 'methods', 'after'}
_HASH_CHARS = 16
MAX_SUBJECT = 72


class PatchError(Exception):
  """A patch file that is malformed, or an edit that cannot be applied."""


class StaleError(PatchError):
  """An edit whose place is no longer in the upstream tree."""


@dataclasses.dataclass(frozen=True)
class Edit:
  """One span of an upstream file and the lines written for it.

  Attributes:
    file: the file, relative to upstream's root.
    scope: the dotted ``def``/``class`` path enclosing the span, '' for the
      module.
    line: the span's first line, 1 being the scope's first line.
    replaced: how many lines the span has (0 for an insertion).
    sha256: the hash of the span (of its neighbours for an insertion).
    text: the lines that take its place, each ending with a newline.
    create: whether the edit makes a new file (``text`` is its body).
  """

  file: str
  scope: str = ''
  line: int = 1
  replaced: int = 0
  sha256: str = ''
  text: str = ''
  create: bool = False


@dataclasses.dataclass(frozen=True)
class Reference:
  """An upstream issue or pull request a patch names."""

  ref: str
  kind: str
  note: str = ''
  review_first: bool = False
  differs: str = ''

  @property
  def number(self) -> int:
    """The issue's or pull request's number."""
    return int(self.ref.lstrip('#'))

  @property
  def url(self) -> str:
    """Its page on GitHub."""
    part = 'pull' if self.kind == 'pull' else 'issues'
    return f'https://github.com/google-deepmind/optax/{part}/{self.number}'


@dataclasses.dataclass(frozen=True)
class TestPlacement:
  """Where a patch's reproducer goes in upstream's tree."""

  source: str
  into: str
  klass: Optional[str] = None
  methods: tuple[str, ...] = ()
  after: Optional[str] = None


@dataclasses.dataclass(frozen=True)
class Patch:
  """One ``upstream_patches/<id>.toml``."""

  fix: str
  base: str
  subject: str
  message: str
  description: str
  references: tuple[Reference, ...]
  depends: tuple[str, ...]
  why_depends: str
  test: Optional[TestPlacement]
  edits: tuple[Edit, ...]
  path: Optional[pathlib.Path] = None

  @property
  def files(self) -> tuple[str, ...]:
    """The upstream files the code edits touch, in order."""
    return tuple(dict.fromkeys(e.file for e in self.edits))


# Reading and writing patch files.


def _check_fields(where: str, table: dict[str, Any], allowed: set[str]
                  ) -> None:
  unknown = set(table) - allowed
  if unknown:
    raise PatchError(f'{where}: unknown field(s) {sorted(unknown)}; '
                     f'expected some of {sorted(allowed)}')


def _string(where: str, table: dict[str, Any], key: str,
            required: bool = True) -> str:
  value = table.get(key, '')
  if not isinstance(value, str) or (required and not value.strip()):
    raise PatchError(f'{where}: {key} must be a non-empty string, got '
                     f'{value!r}')
  return value


def parse(table: dict[str, Any], where: str = '<patch>',
          path: Optional[pathlib.Path] = None) -> Patch:
  """A patch from the table of its TOML file.

  Args:
    table: the file's parsed TOML.
    where: the file's name, for errors.
    path: the file, if any.

  Returns:
    The patch.

  Raises:
    PatchError: a missing or malformed field.
  """
  _check_fields(where, table, _FIELDS)
  fix = _string(where, table, 'fix')
  if not _ID.match(fix):
    raise PatchError(f'{where}: fix must be a kebab-case ledger id, got '
                     f'{fix!r}')
  base = _string(where, table, 'base')
  if not _HEX.match(base):
    raise PatchError(f'{where}: base must be an upstream commit hash, got '
                     f'{base!r}')
  subject = _string(where, table, 'subject')
  if '\n' in subject.strip() or len(subject.strip()) > MAX_SUBJECT:
    raise PatchError(f'{where}: subject must be one line of at most '
                     f'{MAX_SUBJECT} characters (a commit\'s subject), got '
                     f'{len(subject.strip())}')
  depends = table.get('depends', [])
  if (not isinstance(depends, list)
      or not all(isinstance(d, str) and _ID.match(d) for d in depends)):
    raise PatchError(f'{where}: depends must be a list of ledger ids, got '
                     f'{depends!r}')
  if fix in depends:
    raise PatchError(f'{where}: a patch cannot depend on itself')
  why = _string(where, table, 'why_depends', required=bool(depends))
  description = _string(where, table, 'description')
  message = table.get('message', '')
  if not isinstance(message, str):
    raise PatchError(f'{where}: message must be a string')
  for key, text in (('subject', subject), ('message', message),
                    ('description', description)):
    found = _FORK_WORDING.search(text)
    if found:
      raise PatchError(f'{where}: {key} speaks of {found.group(0)!r}: a '
                       'text offered upstream speaks in upstream\'s voice')
  references = []
  raw_refs = table.get('references', [])
  if not isinstance(raw_refs, list):
    raise PatchError(f'{where}: references must be a list of tables')
  for raw in raw_refs:
    if (not isinstance(raw, dict) or set(raw) - _REF_FIELDS
        or not re.match(r'^#[0-9]+$', str(raw.get('ref', '')))
        or raw.get('kind') not in _REF_KINDS
        or not isinstance(raw.get('note', ''), str)
        or not isinstance(raw.get('differs', ''), str)
        or not isinstance(raw.get('review_first', False), bool)):
      raise PatchError(f'{where}: each reference is {{ref = "#N", kind = '
                       f'"issue" or "pull", note = "..."}} (a pull request '
                       'may add review_first = true and differs = "..."), '
                       f'got {raw!r}')
    first = raw.get('review_first', False)
    differs = raw.get('differs', '').strip()
    if first and (raw['kind'] != 'pull' or not differs):
      raise PatchError(f'{where}: {raw["ref"]}: review_first is for an open '
                       'pull request making the same change, and needs '
                       'differs (how this patch differs from it)')
    if differs and not first:
      raise PatchError(f'{where}: {raw["ref"]}: differs goes with '
                       'review_first = true')
    for key, text in (('note', raw.get('note', '')), ('differs', differs)):
      found = _FORK_WORDING.search(text)
      if found:
        raise PatchError(f'{where}: {raw["ref"]}: {key} speaks of '
                         f'{found.group(0)!r}')
    references.append(Reference(raw['ref'], raw['kind'],
                                raw.get('note', '').strip(), first, differs))
  edits = []
  raw_edits = table.get('edit', [])
  if not isinstance(raw_edits, list) or not raw_edits:
    raise PatchError(f'{where}: a patch needs at least one [[edit]]')
  for i, raw in enumerate(raw_edits):
    edits.append(_parse_edit(f'{where}: edit {i + 1}', raw))
  test = None
  if 'test' in table:
    raw = table['test']
    if not isinstance(raw, dict):
      raise PatchError(f'{where}: [test] must be a table')
    _check_fields(f'{where}: [test]', raw, _TEST_FIELDS)
    methods = raw.get('methods', [])
    if not isinstance(methods, list) or not all(
        isinstance(m, str) for m in methods):
      raise PatchError(f'{where}: [test] methods must be a list of names')
    klass = raw.get('class')
    if klass is not None and not isinstance(klass, str):
      raise PatchError(f'{where}: [test] class must be a string')
    after = raw.get('after')
    if after is not None and not (isinstance(after, str)
                                  and after.isidentifier()):
      raise PatchError(f'{where}: [test] after must name a method, class or '
                       f'function, got {after!r}')
    test = TestPlacement(
        source=_string(f'{where}: [test]', raw, 'source'),
        into=_string(f'{where}: [test]', raw, 'into'),
        klass=klass, methods=tuple(methods), after=after)
    if not test.into.endswith('_test.py'):
      raise PatchError(f'{where}: [test] into must be an upstream test file '
                       f'(*_test.py), got {test.into!r}')
  return Patch(fix=fix, base=base, subject=subject.strip(),
               message=message.strip(), description=description.strip(),
               references=tuple(references), depends=tuple(depends),
               why_depends=why.strip(), test=test, edits=tuple(edits),
               path=path)


def _parse_edit(where: str, raw: Any) -> Edit:
  """One ``[[edit]]`` table."""
  if not isinstance(raw, dict):
    raise PatchError(f'{where}: must be a table')
  _check_fields(where, raw, _EDIT_FIELDS)
  file = _string(where, raw, 'file')
  if file.startswith('/') or '..' in pathlib.PurePosixPath(file).parts:
    raise PatchError(f'{where}: file must be relative to upstream\'s root, '
                     f'got {file!r}')
  text = raw.get('text', '')
  if not isinstance(text, str):
    raise PatchError(f'{where}: text must be a string')
  if text and not text.endswith('\n'):
    text += '\n'
  if raw.get('create', False):
    if set(raw) - {'file', 'create', 'text'}:
      raise PatchError(f'{where}: a create edit has only file and text')
    if not text.strip():
      raise PatchError(f'{where}: a new file needs its text')
    return Edit(file=file, text=text, create=True)
  scope = raw.get('scope', '')
  line, replaced = raw.get('line'), raw.get('replaced')
  digest = raw.get('sha256')
  if not isinstance(scope, str):
    raise PatchError(f'{where}: scope must be a dotted name or ""')
  if not isinstance(line, int) or line < 1:
    raise PatchError(f'{where}: line must be an integer >= 1, got {line!r}')
  if not isinstance(replaced, int) or replaced < 0:
    raise PatchError(f'{where}: replaced must be an integer >= 0, got '
                     f'{replaced!r}')
  if not isinstance(digest, str) or not re.match(r'^[0-9a-f]{16,64}$',
                                                 digest):
    raise PatchError(f'{where}: sha256 must be a hex digest, got {digest!r}')
  if replaced == 0 and not text:
    raise PatchError(f'{where}: an edit that replaces nothing must add text')
  return Edit(file=file, scope=scope, line=line, replaced=replaced,
              sha256=digest, text=text)


def load(path: pathlib.Path) -> Patch:
  """Reads and validates one patch file.

  Args:
    path: ``upstream_patches/<id>.toml``.

  Returns:
    The patch.

  Raises:
    PatchError: the file is malformed or named otherwise than its fix.
  """
  try:
    with open(path, 'rb') as f:
      table = tomllib.load(f)
  except tomllib.TOMLDecodeError as exc:
    raise PatchError(f'{path}: {exc}') from exc
  patch = parse(table, str(path.name), path)
  if path.stem != patch.fix:
    raise PatchError(f'{path}: the file of fix {patch.fix!r} must be named '
                     f'{patch.fix}.toml')
  return patch


def load_all(folder: pathlib.Path = PATCHES) -> dict[str, Patch]:
  """Every patch of ``folder``, by fix id, with their dependencies checked.

  Args:
    folder: the patches' folder.

  Returns:
    The patches, in file-name order.

  Raises:
    PatchError: a malformed file, a dependency that has no patch, or a
      cycle of dependencies.
  """
  patches = {}
  for path in sorted(folder.glob('*.toml')):
    patch = load(path)
    patches[patch.fix] = patch
  for patch in patches.values():
    for dep in patch.depends:
      if dep not in patches:
        raise PatchError(f'{patch.fix}: depends on {dep!r}, which has no '
                         'patch')
  for fix in patches:
    order(patches, [fix])  # Raises on a cycle.
  return patches


def load_some(fixes: Iterable[str], folder: pathlib.Path = PATCHES
              ) -> dict[str, Patch]:
  """The patches of ``fixes`` and those they depend on, and no other.

  A malformed file of another fix (a draft) does not stop these.

  Args:
    fixes: the fix ids wanted.
    folder: the patches' folder.

  Returns:
    The patches read, by id.

  Raises:
    PatchError: a wanted patch (or a dependency) that is missing or
      malformed, or a cycle of dependencies.
  """
  patches: dict[str, Patch] = {}
  todo = list(fixes)
  while todo:
    fix = todo.pop()
    if fix in patches:
      continue
    path = folder / f'{fix}.toml'
    if not path.is_file():
      raise PatchError(f'no patch for {fix!r} ({path})')
    patches[fix] = load(path)
    todo += patches[fix].depends
  order(patches, list(patches))  # Raises on a cycle.
  return patches


def order(patches: dict[str, Patch], fixes: Iterable[str]) -> list[str]:
  """``fixes`` with their dependencies, each after what it depends on.

  Args:
    patches: every patch, by id.
    fixes: the ones wanted.

  Returns:
    The ids to apply, dependencies first, each once.

  Raises:
    PatchError: an unknown id or a cycle.
  """
  done: list[str] = []
  visiting: list[str] = []

  def visit(fix: str) -> None:
    if fix in done:
      return
    if fix in visiting:
      cycle = ' -> '.join(visiting[visiting.index(fix):] + [fix])
      raise PatchError(f'a cycle of dependencies: {cycle}')
    if fix not in patches:
      raise PatchError(f'no patch for {fix!r}')
    visiting.append(fix)
    for dep in patches[fix].depends:
      visit(dep)
    visiting.pop()
    done.append(fix)

  for fix in fixes:
    visit(fix)
  return done


def _toml_string(text: str) -> str:
  """``text`` as a TOML string: a literal multi-line one where it can be."""
  if '\n' not in text and "'" not in text and '\\' not in text and (
      '"' not in text):
    return f'"{text}"'
  if "'''" not in text and not text.endswith("'"):
    return f"'''\n{text}'''"
  escaped = (text.replace('\\', '\\\\').replace('"""', '""\\"'))
  return f'"""\n{escaped}"""'


def dumps(patch: Patch) -> str:
  """The TOML text of a patch (as :func:`parse` reads it)."""
  out = [f'fix = "{patch.fix}"', f'base = "{patch.base}"',
         f'subject = {_toml_string(patch.subject)}']
  if patch.message:
    out.append(f'message = {_toml_string(patch.message + chr(10))}')
  out.append(f'description = {_toml_string(patch.description + chr(10))}')
  if patch.references:
    out.append('references = [')
    for ref in patch.references:
      note = f', note = {_toml_string(ref.note)}' if ref.note else ''
      if ref.review_first:
        note += (f', review_first = true, differs = '
                 f'{_toml_string(ref.differs)}')
      out.append(f'  {{ref = "{ref.ref}", kind = "{ref.kind}"{note}}},')
    out.append(']')
  if patch.depends:
    out.append('depends = [' + ', '.join(f'"{d}"' for d in patch.depends)
               + ']')
    out.append(f'why_depends = {_toml_string(patch.why_depends)}')
  if patch.test is not None:
    out += ['', '[test]', f'source = "{patch.test.source}"',
            f'into = "{patch.test.into}"']
    if patch.test.klass:
      out.append(f'class = "{patch.test.klass}"')
    if patch.test.methods:
      out.append('methods = [' + ', '.join(
          f'"{m}"' for m in patch.test.methods) + ']')
    if patch.test.after:
      out.append(f'after = "{patch.test.after}"')
  for edit in patch.edits:
    out += ['', '[[edit]]', f'file = "{edit.file}"']
    if edit.create:
      out.append('create = true')
    else:
      out += [f'scope = "{edit.scope}"', f'line = {edit.line}',
              f'replaced = {edit.replaced}', f'sha256 = "{edit.sha256}"']
    if edit.text:
      out.append(f'text = {_toml_string(edit.text)}')
  return '\n'.join(out) + '\n'


# Locating spans.


def digest(lines: Sequence[str]) -> str:
  """The hash of some lines (without their line ends), shortened."""
  joined = '\n'.join(line.rstrip('\r\n') for line in lines)
  return hashlib.sha256(joined.encode('utf-8')).hexdigest()[:_HASH_CHARS]


def _span_digest(lines: Sequence[str], start: int, replaced: int) -> str:
  """The hash that identifies a span of ``lines`` (0-based ``start``).

  A span of lines hashes its lines; an insertion (``replaced == 0``) hashes
  the line before it and the line after it, so that its place is known.
  """
  if replaced:
    return digest(lines[start:start + replaced])
  before = lines[start - 1] if start > 0 else ''
  after = lines[start] if start < len(lines) else ''
  return digest([before, after])


def scopes(source: str) -> dict[str, tuple[int, int]]:
  """Every ``def`` and ``class`` of a module, by dotted path.

  Args:
    source: a Python module.

  Returns:
    ``{path: (first, last)}``, 1-based lines, the first being the ``def``
    or ``class`` line (after any decorators); ``''`` spans the module.
  """
  tree = ast.parse(source)
  n_lines = len(source.splitlines())
  found = {'': (1, max(n_lines, 1))}

  def walk(body: Iterable[ast.stmt], prefix: str) -> None:
    for node in body:
      if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                           ast.ClassDef)):
        name = f'{prefix}{node.name}'
        if name not in found:  # The first of two same-named definitions.
          found[name] = (node.lineno, node.end_lineno or node.lineno)
        walk(node.body, name + '.')
      else:
        for field in ('body', 'orelse', 'finalbody', 'handlers'):
          inner = getattr(node, field, None)
          if isinstance(inner, list):
            walk([s for s in inner if isinstance(s, ast.AST)], prefix)

  walk(tree.body, '')
  return found


def innermost_scope(found: dict[str, tuple[int, int]], first: int,
                    last: int) -> str:
  """The deepest scope holding lines ``first``..``last`` (1-based)."""
  best, best_size = '', None
  for name, (lo, hi) in found.items():
    if name and lo <= first and last <= hi:
      size = hi - lo
      if best_size is None or size < best_size:
        best, best_size = name, size
  return best


def locate(edit: Edit, lines: Sequence[str], source: str
           ) -> tuple[int, int]:
  """Where an edit's span is in a file.

  Args:
    edit: a span edit.
    lines: the file's lines.
    source: the same file as one string.

  Returns:
    ``(start, moved)``: the span's first line, 0-based, and how many lines
    it moved from where the patch recorded it.

  Raises:
    StaleError: the scope is gone, or no single span has the hash.
  """
  found = scopes(source)
  if edit.scope not in found:
    raise StaleError(f'{edit.file}: no {edit.scope} (the edit\'s scope)')
  lo, hi = found[edit.scope]
  start = lo - 1 + edit.line - 1
  if (0 <= start <= len(lines) - edit.replaced
      and _span_digest(lines, start, edit.replaced) == edit.sha256):
    return start, 0
  last = hi - edit.replaced if edit.replaced else hi
  matches = [s for s in range(lo - 1, last + 1)
             if _span_digest(lines, s, edit.replaced) == edit.sha256]
  if len(matches) == 1:
    return matches[0], matches[0] - start
  # Several spans alike (an insertion between a closing bracket and a blank
  # line): the one nearest the recorded place, when one is nearest.
  distances = sorted((abs(m - start), m) for m in matches)
  if len(distances) > 1 and distances[0][0] < distances[1][0]:
    return distances[0][1], distances[0][1] - start
  where = (f'{edit.scope or "module level"}, line {edit.line} of it, '
           f'{edit.replaced} line(s)')
  if not matches:
    raise StaleError(f'{edit.file}: {where}: upstream changed these lines '
                     '(no span of the scope has the recorded hash)')
  raise StaleError(f'{edit.file}: {where}: {len(matches)} spans of the '
                   'scope have the recorded hash, none nearest')


# Applying.


def licence_header(tree: pathlib.Path, year: Optional[int] = None) -> str:
  """Upstream's licence header, from its ``optax/__init__.py``.

  Args:
    tree: an upstream tree.
    year: the copyright year of the new file (default: this year).

  Returns:
    The leading comment block, through its ``# ===`` line, with the year
    replaced.
  """
  lines = (tree / 'optax' / '__init__.py').read_text(
      encoding='utf-8').splitlines(keepends=True)
  header = []
  for line in lines:
    if not line.startswith('#'):
      break
    header.append(line)
    if line.startswith('# ===='):
      break
  if not header:
    raise PatchError(f'{tree}/optax/__init__.py has no licence header')
  year = year or datetime.date.today().year
  return re.sub(r'Copyright \d{4}', f'Copyright {year}', ''.join(header),
                count=1)


def apply_edits(tree: pathlib.Path, patch: Patch,
                year: Optional[int] = None) -> list[str]:
  """Applies a patch's code edits to a tree, in place.

  Edits of one file are located on the file as it was before the patch
  and applied from the bottom up, so that none moves another.

  Args:
    tree: an upstream tree (a copy: it is changed).
    patch: the patch.
    year: the copyright year of new files.

  Returns:
    Notes on edits that moved.

  Raises:
    StaleError: an edit that no longer applies.
    PatchError: overlapping edits, or a new file that exists already.
  """
  notes = []
  by_file: dict[str, list[Edit]] = {}
  for edit in patch.edits:
    by_file.setdefault(edit.file, []).append(edit)
  for file, edits in by_file.items():
    path = tree / file
    creates = [e for e in edits if e.create]
    if creates:
      if len(edits) > 1 or path.exists():
        raise PatchError(f'{patch.fix}: {file}: a new file is made once, '
                         'and only where upstream has none')
      path.parent.mkdir(parents=True, exist_ok=True)
      path.write_text(licence_header(tree, year) + creates[0].text,
                      encoding='utf-8')
      continue
    if not path.is_file():
      raise StaleError(f'{patch.fix}: {file}: no such upstream file')
    source = path.read_text(encoding='utf-8')
    lines = source.splitlines(keepends=True)
    spans = []
    for edit in edits:
      try:
        start, moved = locate(edit, lines, source)
      except StaleError as exc:
        raise StaleError(f'{patch.fix}: {exc}') from exc
      if moved:
        notes.append(f'{patch.fix}: {file}: {edit.scope or "module"} '
                     f'edit moved by {moved:+d} lines')
      spans.append((start, start + edit.replaced, edit))
    spans.sort(key=lambda s: (s[0], s[1]))
    for (_, end_a, a), (start_b, _, b) in zip(spans, spans[1:]):
      if start_b < end_a:
        raise PatchError(f'{patch.fix}: {file}: edits in {a.scope!r} and '
                         f'{b.scope!r} overlap')
    for start, end, edit in reversed(spans):
      lines[start:end] = edit.text.splitlines(keepends=True)
    path.write_text(''.join(lines), encoding='utf-8')
  return notes


def _import_key(line: str) -> tuple[int, str, str]:
  """The sort key of an import line in Google style.

  Args:
    line: ``import a.b as c`` or ``from a.b import c``.

  Returns:
    Its group (``__future__``, the standard library, the rest), then the
    module and the name imported.
  """
  words = line.split()
  module = words[1].lower()
  name = words[3].lower() if words[0] == 'from' else ''
  top = module.split('.')[0]
  group = (0 if top == '__future__'
           else 1 if top in sys.stdlib_module_names else 2)
  return group, module, name


def _top_level_imports(source: str) -> list[tuple[int, int, str]]:
  """``(first, last, text)`` of each top-level import (1-based lines)."""
  lines = source.splitlines()
  return [(n.lineno, n.end_lineno or n.lineno,
           '\n'.join(lines[n.lineno - 1:n.end_lineno]))
          for n in ast.parse(source).body
          if isinstance(n, (ast.Import, ast.ImportFrom))
          and n.col_offset == 0]


def _normalized(import_text: str) -> str:
  return ' '.join(import_text.replace('(', ' ').replace(')', ' ').split())


def add_imports(source: str, imports: Sequence[str]) -> str:
  """Adds the import lines ``source`` lacks, in sorted position.

  Args:
    source: a test module.
    imports: import statements (each one line).

  Returns:
    The module with those it did not have inserted among its top-level
    imports: before the first import of its group that sorts after it, else
    after the last one that sorts before it, else before the first import;
    after the module's docstring when it has no import.
  """
  present = {_normalized(t) for _, _, t in _top_level_imports(source)}
  for imp in imports:
    if _normalized(imp) in present:
      continue
    existing = _top_level_imports(source)
    lines = source.splitlines(keepends=True)
    if existing:
      key = _import_key(imp)
      later = [first for first, _, text in existing
               if _import_key(text) > key and _import_key(text)[0] == key[0]]
      before = [last for _, last, text in existing
                if _import_key(text) <= key]
      # Just before the first import of its group that sorts after it (so
      # within that import's block), else after the last that sorts before.
      at = (min(later) - 1 if later else before[-1] if before
            else existing[0][0] - 1)
    else:
      body = ast.parse(source).body
      at = body[0].end_lineno if body and isinstance(
          body[0], ast.Expr) else 0
    lines.insert(at, imp + '\n')
    source = ''.join(lines)
    present.add(_normalized(imp))
  return source


@dataclasses.dataclass(frozen=True)
class Reproducer:
  """The parts of a reproducer file that a placement moves."""

  imports: tuple[str, ...]
  helpers: str
  klass: str
  class_source: str
  methods: dict[str, str]
  body: str


def read_reproducer(path: pathlib.Path) -> Reproducer:
  """Splits a reproducer (one ``TestCase`` class) into its parts.

  Args:
    path: the reproducer file.

  Returns:
    Its import lines, its module-level helpers (all other top-level
    statements but the docstring and the ``__main__`` block), its class's
    name and source, each test method's source (with decorators, at the
    class's indentation) and the whole file below its licence header.

  Raises:
    PatchError: a file with other than one class.
  """
  source = path.read_text(encoding='utf-8')
  lines = source.splitlines(keepends=True)
  tree = ast.parse(source)
  classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
  if len(classes) != 1:
    raise PatchError(f'{path}: a reproducer has one test class, found '
                     f'{len(classes)}')
  klass = classes[0]

  def text(node: ast.AST) -> str:
    first = min([d.lineno for d in getattr(node, 'decorator_list', [])]
                + [node.lineno])
    return ''.join(lines[first - 1:node.end_lineno])

  imports, helpers = [], []
  for node in tree.body:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
      imports.append(text(node).strip())
    elif node is klass or (isinstance(node, ast.Expr) and node is tree.body[0]
                           and isinstance(node.value, ast.Constant)):
      continue
    elif isinstance(node, ast.If) and '__main__' in ast.unparse(node.test):
      continue
    else:
      helpers.append(text(node))
  methods = {n.name: text(n) for n in klass.body
             if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
  first_code = next(i for i, ln in enumerate(lines)
                    if not ln.startswith('#') and ln.strip())
  return Reproducer(imports=tuple(imports),
                    helpers='\n\n'.join(h.rstrip() + '\n' for h in helpers),
                    klass=klass.name, class_source=text(klass),
                    methods=methods, body=''.join(lines[first_code:]))


def place_test(tree: pathlib.Path, placement: TestPlacement,
               repo: Optional[pathlib.Path] = None,
               year: Optional[int] = None) -> list[str]:
  """Puts a reproducer into an upstream tree, in place.

  Args:
    tree: the upstream tree (a copy).
    placement: the patch's ``[test]``.
    repo: the repository holding ``placement.source`` (default: this one).
    year: the copyright year of a new test file.

  Returns:
    The pytest node ids of the placed tests (``file::Class::method``);
    pytest's parameterized variants of each extend its id.

  Raises:
    PatchError: a method or class that is not there.
  """
  repro = read_reproducer((repo or REPO) / placement.source)
  path = tree / placement.into
  methods = placement.methods or tuple(
      m for m in repro.methods if m.startswith('test'))
  missing = [m for m in methods if m not in repro.methods]
  if missing:
    raise PatchError(f'{placement.source}: no method(s) {missing}')
  moved = [repro.helpers, *(repro.methods[m] for m in methods)]
  if not path.exists() or not placement.klass:
    moved.append(repro.body if not path.exists() else repro.class_source)
  for text in moved:
    found = _FORK_WORDING.search(text)
    if found:
      raise PatchError(f'{placement.source}: the test offered upstream '
                       f'speaks of {found.group(0)!r}')
  if not path.exists():
    if placement.klass:
      raise PatchError(f'{placement.into} does not exist upstream, so the '
                       f'reproducer cannot go into its class '
                       f'{placement.klass}')
    path.write_text(licence_header(tree, year) + repro.body,
                    encoding='utf-8')
    return [f'{placement.into}::{repro.klass}::{m}' for m in methods]
  source = path.read_text(encoding='utf-8')
  source = add_imports(source, repro.imports)
  lines = source.splitlines(keepends=True)
  module = ast.parse(source)
  if placement.klass:
    target = [n for n in module.body if isinstance(n, ast.ClassDef)
              and n.name == placement.klass]
    if not target:
      raise PatchError(f'{placement.into}: no class {placement.klass}')
    cls = target[0]
    end = cls.end_lineno
    if placement.after:
      anchor = [n for n in cls.body if isinstance(
          n, (ast.FunctionDef, ast.AsyncFunctionDef))
                and n.name == placement.after]
      if not anchor:
        raise PatchError(f'{placement.into}: {placement.klass} has no method '
                         f'{placement.after} to place the tests after')
      end = anchor[0].end_lineno
    added = ''.join('\n' + repro.methods[m] for m in methods)
    lines[end:end] = added.splitlines(keepends=True)
    if repro.helpers:
      first = min([d.lineno for d in cls.decorator_list] + [cls.lineno])
      lines[first - 1:first - 1] = (repro.helpers + '\n\n').splitlines(
          keepends=True)
    path.write_text(''.join(lines), encoding='utf-8')
    return [f'{placement.into}::{placement.klass}::{m}' for m in methods]
  main = [n for n in module.body if isinstance(n, ast.If)
          and '__main__' in ast.unparse(n.test)]
  block = (repro.helpers + '\n\n' if repro.helpers else '') + (
      repro.class_source)
  if placement.after:
    anchor = [n for n in module.body if getattr(n, 'name', None)
              == placement.after]
    if not anchor:
      raise PatchError(f'{placement.into}: no top-level {placement.after} to '
                       'place the test class after')
    at = anchor[0].end_lineno
    block = '\n\n' + block
  elif main:  # Two blank lines are there before the main block already.
    at = main[0].lineno - 1
    block += '\n\n'
  else:
    at = len(lines)
    block = '\n\n' + block
  lines[at:at] = block.splitlines(keepends=True)
  path.write_text(''.join(lines), encoding='utf-8')
  return [f'{placement.into}::{repro.klass}::{m}' for m in methods]


def copy_tree(tree: pathlib.Path, dest: pathlib.Path) -> pathlib.Path:
  """A copy of an upstream tree's files (no git folder, no caches)."""
  if dest.exists():
    shutil.rmtree(dest)
  shutil.copytree(tree, dest, ignore=shutil.ignore_patterns(
      '.git', '__pycache__', '*.pyc', '.pytest_cache'))
  return dest


@dataclasses.dataclass
class Applied:
  """What applying patches to a copy of a tree gave.

  Attributes:
    tree: the patched copy.
    tests: the node ids of the reproducers placed, by fix id.
    notes: edits that moved.
  """

  tree: pathlib.Path
  tests: dict[str, list[str]]
  notes: list[str]


def apply(patches: dict[str, Patch], fixes: Sequence[str],
          tree: pathlib.Path, dest: pathlib.Path, code: bool = True,
          tests: bool = True, repo: Optional[pathlib.Path] = None,
          year: Optional[int] = None) -> Applied:
  """Copies ``tree`` to ``dest`` and applies ``fixes`` there.

  Args:
    patches: every patch, by id.
    fixes: the patches wanted; their dependencies are applied first, code
      and tests alike, whatever ``code`` and ``tests`` say.
    tree: a pristine upstream tree.
    dest: where the copy goes (replaced if it exists).
    code: whether to apply the wanted patches' code edits.
    tests: whether to place their reproducers.
    repo: the repository holding the reproducers (default: this one).
    year: the copyright year of new files.

  Returns:
    The result.

  Raises:
    PatchError: as :func:`apply_edits` and :func:`place_test`.
  """
  copy_tree(tree, dest)
  wanted = set(fixes)
  placed: dict[str, list[str]] = {}
  notes: list[str] = []
  for fix in order(patches, fixes):
    patch = patches[fix]
    is_dep = fix not in wanted
    if code or is_dep:
      notes += apply_edits(dest, patch, year)
    if patch.test is not None and (tests or is_dep):
      placed[fix] = place_test(dest, patch.test, repo, year)
  return Applied(dest, placed, notes)


def unified_diff(before: pathlib.Path, after: pathlib.Path) -> str:
  """The unified diff of two trees (``a/`` and ``b/`` prefixes)."""
  out = []
  names = sorted({p.relative_to(before).as_posix()
                  for p in before.rglob('*') if p.is_file()}
                 | {p.relative_to(after).as_posix()
                    for p in after.rglob('*') if p.is_file()})
  for name in names:
    if '__pycache__' in name or name.endswith('.pyc'):
      continue
    a, b = before / name, after / name
    old_bytes = a.read_bytes() if a.exists() else b''
    new_bytes = b.read_bytes() if b.exists() else b''
    if old_bytes == new_bytes:
      continue
    try:
      old = old_bytes.decode('utf-8').splitlines(keepends=True)
      new = new_bytes.decode('utf-8').splitlines(keepends=True)
    except UnicodeDecodeError:
      out.append(f'Binary files a/{name} and b/{name} differ\n')
      continue
    out += difflib.unified_diff(
        old, new, fromfile=f'a/{name}' if a.exists() else '/dev/null',
        tofile=f'b/{name}' if b.exists() else '/dev/null')
  return ''.join(line if line.endswith('\n') else line + '\n'
                 for line in out)


# Recording a patch from two trees.


def record_edits(base: pathlib.Path, modified: pathlib.Path,
                 files: Optional[Sequence[str]] = None) -> list[Edit]:
  """The edits that turn ``base`` into ``modified``.

  Args:
    base: a pristine upstream tree.
    modified: a copy of it, edited by hand.
    files: the files to compare (default: every ``.py`` file of either).

  Returns:
    One edit per changed span (the smallest spans difflib finds), located
    in its innermost scope; a new file is one create edit.
  """
  if files is None:
    files = sorted({p.relative_to(t).as_posix()
                    for t in (base, modified)
                    for p in t.rglob('*.py')
                    if '__pycache__' not in p.parts})
  edits = []
  for name in files:
    a, b = base / name, modified / name
    if not b.exists():
      raise PatchError(f'{name}: deleting an upstream file is not a patch '
                       'this format records')
    new = b.read_text(encoding='utf-8')
    if not a.exists():
      body = new.splitlines(keepends=True)
      while body and body[0].startswith('#'):
        body.pop(0)  # The licence header is put back when applied.
      edits.append(Edit(file=name, text=''.join(body), create=True))
      continue
    old = a.read_text(encoding='utf-8')
    if old == new:
      continue
    old_lines = old.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    found = scopes(old)
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines,
                                      autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
      if tag == 'equal':
        continue
      if i2 > i1:
        scope = innermost_scope(found, i1 + 1, i2)
      else:  # An insertion before line i1 + 1: between i1 and i1 + 1.
        scope = innermost_scope(found, max(i1, 1),
                                min(i1 + 1, len(old_lines)))
      lo = found[scope][0]
      edits.append(Edit(
          file=name, scope=scope, line=i1 + 1 - lo + 1, replaced=i2 - i1,
          sha256=_span_digest(old_lines, i1, i2 - i1),
          text=''.join(new_lines[j1:j2])))
  return edits


# Command line.


def _tree(path: str) -> pathlib.Path:
  tree = pathlib.Path(path).resolve()
  if not (tree / 'optax' / '__init__.py').is_file():
    raise SystemExit(f'upstream_patch: {tree} is not an upstream tree (no '
                     'optax/__init__.py)')
  return tree


def _cmd_record(args: argparse.Namespace) -> int:
  base, modified = _tree(args.base), _tree(args.modified)
  path = pathlib.Path(args.patches) / f'{args.fix}.toml'
  old = load(path) if path.exists() else None
  edits = record_edits(base, modified, args.file or None)
  if not edits:
    raise SystemExit('upstream_patch: the two trees do not differ')
  test = old.test if old else None
  if args.test_into:
    source = f'upstream_tests/{args.fix.replace("-", "_")}_test.py'
    test = TestPlacement(source=test.source if test else source,
                         into=args.test_into, klass=args.test_class)
  patch = Patch(
      fix=args.fix, base=args.base_commit or (old.base if old else ''),
      subject=args.subject or (old.subject if old else ''),
      message=old.message if old else '',
      description=old.description if old else '',
      references=old.references if old else (),
      depends=tuple(args.depends) or (old.depends if old else ()),
      why_depends=old.why_depends if old else '', test=test,
      edits=tuple(edits))
  path.parent.mkdir(parents=True, exist_ok=True)
  path.write_text(dumps(patch), encoding='utf-8')
  try:
    parse(tomllib.loads(path.read_text(encoding='utf-8')), path.name)
  except PatchError as exc:
    print(f'upstream_patch: wrote {path}, which still needs: {exc}',
          file=sys.stderr)
    return 1
  print(f'wrote {path}: {len(edits)} edit(s)')
  return 0


def _cmd_diff(args: argparse.Namespace, work: pathlib.Path) -> int:
  patches = load_some([args.fix], pathlib.Path(args.patches))
  tree = _tree(args.upstream_tree)
  deps = [d for d in order(patches, [args.fix]) if d != args.fix]
  before = apply(patches, deps, tree, work / 'before').tree if deps else (
      tree)
  after = apply(patches, [args.fix], tree, work / 'after',
                tests=not args.no_test)
  for note in after.notes:
    print(note, file=sys.stderr)
  print(unified_diff(before, after.tree), end='')
  return 0


def _cmd_apply(args: argparse.Namespace) -> int:
  patches = load_some(args.fix, pathlib.Path(args.patches))
  result = apply(patches, args.fix, _tree(args.upstream_tree),
                 pathlib.Path(args.into), code=not args.test_only,
                 tests=not args.no_test)
  for note in result.notes:
    print(note, file=sys.stderr)
  for fix, ids in result.tests.items():
    for nodeid in ids:
      print(f'{fix}: {nodeid}')
  return 0


def _cmd_check(args: argparse.Namespace, work: pathlib.Path) -> int:
  patches = load_all(pathlib.Path(args.patches))
  print(f'{len(patches)} patch files are valid')
  if not args.upstream_tree:
    return 0
  tree = _tree(args.upstream_tree)
  bad = 0
  for fix in patches:
    try:
      result = apply(patches, [fix], tree, work / 'check')
    except PatchError as exc:
      bad += 1
      print(f'STALE {fix}: {exc}')
      continue
    moved = f' ({len(result.notes)} edit(s) moved)' if result.notes else ''
    print(f'applies {fix}{moved}')
  return 1 if bad else 0


def main(argv: Optional[Sequence[str]] = None) -> int:
  """Runs a subcommand; returns the exit status."""
  parser = argparse.ArgumentParser(
      description=__doc__.splitlines()[0],
      formatter_class=argparse.RawDescriptionHelpFormatter)
  parser.add_argument('--patches', default=str(PATCHES))
  sub = parser.add_subparsers(dest='command', required=True)
  rec = sub.add_parser('record', help='write a patch from two trees')
  rec.add_argument('fix')
  rec.add_argument('--base', required=True, help='the pristine tree')
  rec.add_argument('--modified', required=True, help='the edited copy')
  rec.add_argument('--base-commit', default='',
                   help='the commit of --base (kept from an old patch)')
  rec.add_argument('--subject', default='')
  rec.add_argument('--depends', action='append', default=[])
  rec.add_argument('--file', action='append', default=[],
                   help='compare only this file (repeatable)')
  rec.add_argument('--test-into', default='')
  rec.add_argument('--test-class', default=None)
  dif = sub.add_parser('diff', help='print the diff a patch makes')
  dif.add_argument('fix')
  dif.add_argument('--upstream-tree', required=True)
  dif.add_argument('--no-test', action='store_true')
  app = sub.add_parser('apply', help='apply patches to a copy of a tree')
  app.add_argument('fix', nargs='+')
  app.add_argument('--upstream-tree', required=True)
  app.add_argument('--into', required=True)
  which = app.add_mutually_exclusive_group()
  which.add_argument('--no-test', action='store_true')
  which.add_argument('--test-only', action='store_true')
  chk = sub.add_parser('check', help='validate, and say what applies')
  chk.add_argument('--upstream-tree', default='')
  args = parser.parse_args(argv)
  import tempfile  # pylint: disable=import-outside-toplevel
  try:
    if args.command == 'record':
      return _cmd_record(args)
    if args.command == 'apply':
      return _cmd_apply(args)
    with tempfile.TemporaryDirectory(prefix='optax-patch.') as tmp:
      if args.command == 'diff':
        return _cmd_diff(args, pathlib.Path(tmp))
      return _cmd_check(args, pathlib.Path(tmp))
  except PatchError as exc:
    print(f'upstream_patch: {exc}', file=sys.stderr)
    return 1


if __name__ == '__main__':
  sys.exit(main())

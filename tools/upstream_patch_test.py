# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Tests of upstream_patch.py on small made-up upstream trees."""

from __future__ import annotations

import dataclasses
import pathlib
import textwrap
import tomllib

import pytest

from tools import upstream_patch as up

HEADER = textwrap.dedent("""\
    # Copyright 2019 Upstream Authors. All Rights Reserved.
    #
    # Licensed under the Apache License.
    # ========================================================================
    """)

MODULE = textwrap.dedent('''\
    """A module."""

    import jax.numpy as jnp


    def scale(step_size):
      """Scales."""

      def update(updates, state):
        out = updates * step_size
        return out, state

      return update


    def other():
      return 1
    ''')

TEST_MODULE = textwrap.dedent('''\
    """Tests of the module."""

    from absl.testing import absltest
    import jax.numpy as jnp
    from pkg import module


    class ScaleTest(absltest.TestCase):

      def test_scale(self):
        self.assertEqual(module.other(), 1)


    if __name__ == '__main__':
      absltest.main()
    ''')

REPRODUCER = textwrap.dedent('''\
    # Copyright 2026 Someone.
    """Scale doubles."""

    from absl.testing import absltest
    import numpy as np
    from pkg import module

    _FACTOR = 2.0


    class ScaleDoublesTest(absltest.TestCase):

      def test_doubles(self):
        np.testing.assert_allclose(module.scale(_FACTOR)(1.0, None)[0], 2.0)

      def helper(self):
        return 0


    if __name__ == '__main__':
      absltest.main()
    ''')


def make_tree(root: pathlib.Path) -> pathlib.Path:
  """An upstream-like tree: optax/__init__.py, a module and its test."""
  (root / 'optax').mkdir(parents=True)
  (root / 'optax' / '__init__.py').write_text(HEADER + '"""Optax."""\n')
  (root / 'optax' / 'module.py').write_text(HEADER + MODULE)
  (root / 'optax' / 'module_test.py').write_text(HEADER + TEST_MODULE)
  return root


def make_repo(root: pathlib.Path) -> pathlib.Path:
  """A repository with the reproducer under upstream_tests/."""
  (root / 'upstream_tests').mkdir(parents=True)
  (root / 'upstream_tests' / 'scale_doubles_test.py').write_text(REPRODUCER)
  return root


def patch_table(**fields) -> dict:
  """A valid patch's table, with ``fields`` replaced."""
  table = {
      'fix': 'scale-doubles', 'base': '2edbcbe2', 'subject': 'Fix scale.',
      'description': 'The update is scaled twice.',
      'references': [{'ref': '#12', 'kind': 'issue'}],
      'test': {'source': 'upstream_tests/scale_doubles_test.py',
               'into': 'optax/module_test.py', 'class': 'ScaleTest'},
      'edit': [{'file': 'optax/module.py', 'scope': 'scale.update',
                'line': 2, 'replaced': 1,
                'sha256': up.digest(['    out = updates * step_size']),
                'text': '    out = updates * step_size * 2\n'}],
  }
  table.update(fields)
  return table


@pytest.fixture(name='tree')
def fixture_tree(tmp_path):
  """A made-up upstream tree."""
  return make_tree(tmp_path / 'upstream')


@pytest.fixture(name='repo')
def fixture_repo(tmp_path):
  """A made-up repository with its reproducer."""
  return make_repo(tmp_path / 'repo')


def test_parse_reads_every_field():
  patch = up.parse(patch_table(depends=['other-fix'], why_depends='needs it',
                               message='Body.'))
  assert patch.fix == 'scale-doubles'
  assert patch.depends == ('other-fix',)
  assert patch.references[0].url == (
      'https://github.com/google-deepmind/optax/issues/12')
  assert up.Reference('#7', 'pull').url.endswith('/pull/7')
  assert patch.edits[0].text.endswith('* 2\n')
  assert patch.files == ('optax/module.py',)
  assert patch.test.klass == 'ScaleTest'


@pytest.mark.parametrize('fields, match', [
    ({'fix': 'Not_Kebab'}, 'kebab-case'),
    ({'base': 'main'}, 'commit hash'),
    ({'subject': ''}, 'subject'),
    ({'description': ''}, 'description'),
    ({'description': 'The fork clamps it.'}, "speaks of 'fork'"),
    ({'subject': 'See upstream_tests/x.py'}, 'speaks of'),
    ({'references': [{'ref': '12', 'kind': 'issue'}]}, 'each reference'),
    ({'references': [{'ref': '#12', 'kind': 'pr'}]}, 'each reference'),
    ({'depends': ['x']}, 'why_depends'),
    ({'depends': ['scale-doubles'], 'why_depends': 'x'}, 'itself'),
    ({'edit': []}, 'at least one'),
    ({'edit': [{'file': '../x.py', 'line': 1, 'replaced': 0,
                'sha256': '0' * 16, 'text': 'x'}]}, 'relative'),
    ({'edit': [{'file': 'x.py', 'line': 0, 'replaced': 0,
                'sha256': '0' * 16, 'text': 'x'}]}, 'line'),
    ({'edit': [{'file': 'x.py', 'line': 1, 'replaced': 0,
                'sha256': 'xyz', 'text': 'x'}]}, 'sha256'),
    ({'edit': [{'file': 'x.py', 'line': 1, 'replaced': 0,
                'sha256': '0' * 16}]}, 'must add text'),
    ({'edit': [{'file': 'x.py', 'create': True, 'text': ''}]},
     'needs its text'),
    ({'test': {'source': 'a.py', 'into': 'optax/x.py'}}, r'\*_test.py'),
    ({'colour': 'red'}, 'unknown field'),
])
def test_parse_rejects(fields, match):
  with pytest.raises(up.PatchError, match=match):
    up.parse(patch_table(**fields))


def test_dumps_round_trips():
  patch = up.parse(patch_table(
      message='A body with "quotes" and a \\ backslash.',
      references=[{'ref': '#12', 'kind': 'issue', 'note': "it's open"}]))
  again = up.parse(tomllib.loads(up.dumps(patch)))
  assert again == patch


def test_scopes_and_innermost():
  found = up.scopes(MODULE)
  assert found['scale'][0] == 6
  assert found['scale.update'] == (9, 11)
  assert up.innermost_scope(found, 10, 10) == 'scale.update'
  assert up.innermost_scope(found, 13, 13) == 'scale'
  assert up.innermost_scope(found, 1, 2) == ''


def test_apply_edits_and_place_test(tree, repo, tmp_path):
  patches = {'scale-doubles': up.parse(patch_table())}
  result = up.apply(patches, ['scale-doubles'], tree, tmp_path / 'out',
                    repo=repo, year=2031)
  module = (result.tree / 'optax' / 'module.py').read_text()
  assert '    out = updates * step_size * 2\n' in module
  assert 'updates * step_size\n' not in module
  test = (result.tree / 'optax' / 'module_test.py').read_text()
  # The missing import is added in sorted place, the helper before the
  # class, the test method (not the non-test helper) at its end.
  assert test.index('import jax.numpy as jnp') < test.index(
      'import numpy as np') < test.index('from pkg import module')
  assert test.index('_FACTOR = 2.0') < test.index('class ScaleTest')
  assert test.index('def test_scale') < test.index('def test_doubles') < (
      test.index("if __name__ == '__main__'"))
  assert 'def helper' not in test
  assert result.tests == {
      'scale-doubles': ['optax/module_test.py::ScaleTest::test_doubles']}
  assert not result.notes
  # The pristine tree is untouched.
  assert 'step_size * 2' not in (tree / 'optax' / 'module.py').read_text()


def test_test_only_and_whole_class_and_new_file(tree, repo, tmp_path):
  table = patch_table(test={'source': 'upstream_tests/scale_doubles_test.py',
                            'into': 'optax/module_test.py'})
  patches = {'scale-doubles': up.parse(table)}
  result = up.apply(patches, ['scale-doubles'], tree, tmp_path / 'a',
                    code=False, repo=repo)
  assert 'step_size * 2' not in (result.tree / 'optax' / 'module.py'
                                 ).read_text()
  test = (result.tree / 'optax' / 'module_test.py').read_text()
  assert 'class ScaleDoublesTest' in test
  assert test.index('class ScaleDoublesTest') < test.index('__main__')
  # Two blank lines between top-level blocks, as pylint and upstream want.
  assert '\n\n\n\n' not in test
  assert ('self.assertEqual(module.other(), 1)\n\n\n_FACTOR = 2.0\n\n\n'
          'class ScaleDoublesTest') in test
  assert "absltest.TestCase):\n\n  def test_doubles" in test
  assert test.endswith("\n\n\nif __name__ == '__main__':\n  absltest.main()\n")
  table['test']['into'] = 'optax/new_test.py'
  patches = {'scale-doubles': up.parse(table)}
  result = up.apply(patches, ['scale-doubles'], tree, tmp_path / 'b',
                    repo=repo, year=2031)
  new = (result.tree / 'optax' / 'new_test.py').read_text()
  assert new.startswith('# Copyright 2031 Upstream Authors.')
  assert 'Someone' not in new and '"""Scale doubles."""' in new


def test_a_moved_span_is_found_and_a_changed_one_is_stale(tree, repo,
                                                          tmp_path):
  patches = {'scale-doubles': up.parse(patch_table())}
  path = tree / 'optax' / 'module.py'
  path.write_text(path.read_text().replace(
      '  def update(updates, state):\n',
      '  def update(updates, state):\n    del state\n    state = None\n'))
  result = up.apply(patches, ['scale-doubles'], tree, tmp_path / 'a',
                    repo=repo)
  assert result.notes == ['scale-doubles: optax/module.py: scale.update '
                          'edit moved by +2 lines']
  path.write_text(path.read_text().replace('updates * step_size',
                                           'step_size * updates'))
  with pytest.raises(up.StaleError, match='upstream changed these lines'):
    up.apply(patches, ['scale-doubles'], tree, tmp_path / 'b', repo=repo)
  path.write_text(path.read_text().replace('def update(', 'def apply('))
  with pytest.raises(up.StaleError, match='no scale.update'):
    up.apply(patches, ['scale-doubles'], tree, tmp_path / 'c', repo=repo)


def test_of_like_spans_the_nearest_is_taken():
  lines = [f'{name} = (\n    1\n)\n\n' for name in 'abc']
  lines = ''.join(lines).splitlines(keepends=True)
  edit = up.Edit(file='m.py', line=8, replaced=0, text='x = 1\n',
                 sha256=up.digest([')', '']))
  assert up.locate(edit, lines, ''.join(lines)) == (7, 0)
  shifted = ['import os\n'] + lines
  assert up.locate(edit, shifted, ''.join(shifted)) == (8, 1)
  tied = ['import os\n', 'import re\n'] + lines
  with pytest.raises(up.StaleError, match='none nearest'):
    up.locate(edit, tied, ''.join(tied))


def test_insertions_are_placed_by_their_neighbours(tree, tmp_path):
  modified = up.copy_tree(tree, tmp_path / 'mod')
  path = modified / 'optax' / 'module.py'
  path.write_text(path.read_text().replace(
      '    return out, state\n',
      '    out = jnp.asarray(out)\n    return out, state\n'))
  (modified / 'optax' / 'extra.py').write_text(HEADER + '"""New."""\n')
  edits = up.record_edits(tree, modified)
  assert [(e.file, e.scope, e.line, e.replaced, e.create) for e in edits] == [
      ('optax/extra.py', '', 1, 0, True),
      ('optax/module.py', 'scale.update', 3, 0, False)]
  assert edits[0].text == '"""New."""\n'
  table = patch_table(edit=[
      {'file': e.file, 'create': True, 'text': e.text} if e.create else
      {'file': e.file, 'scope': e.scope, 'line': e.line,
       'replaced': e.replaced, 'sha256': e.sha256, 'text': e.text}
      for e in edits])
  del table['test']
  patches = {'scale-doubles': up.parse(table)}
  result = up.apply(patches, ['scale-doubles'], tree, tmp_path / 'out',
                    year=2019)
  assert up.unified_diff(modified, result.tree) == ''
  diff = up.unified_diff(tree, result.tree)
  assert '+    out = jnp.asarray(out)' in diff
  assert '+++ b/optax/extra.py' in diff


def test_overlapping_edits_and_existing_new_files_are_refused(tree,
                                                              tmp_path):
  edit = patch_table()['edit'][0]
  table = patch_table(edit=[edit, dict(edit, text='    out = 0\n')])
  del table['test']
  with pytest.raises(up.PatchError, match='overlap'):
    up.apply({'scale-doubles': up.parse(table)}, ['scale-doubles'], tree,
             tmp_path / 'a')
  table = patch_table(edit=[{'file': 'optax/module.py', 'create': True,
                             'text': 'x = 1\n'}])
  del table['test']
  with pytest.raises(up.PatchError, match='only where upstream has none'):
    up.apply({'scale-doubles': up.parse(table)}, ['scale-doubles'], tree,
             tmp_path / 'b')


def test_order_puts_dependencies_first_and_finds_cycles():
  def make(fix, depends):
    return up.parse(patch_table(fix=fix, depends=depends,
                                why_depends='x' if depends else ''))
  patches = {'a': make('a', ['b']), 'b': make('b', ['c']), 'c': make('c', [])}
  assert up.order(patches, ['a']) == ['c', 'b', 'a']
  assert up.order(patches, ['c', 'a']) == ['c', 'b', 'a']
  patches['c'] = make('c', ['a'])
  with pytest.raises(up.PatchError, match='cycle'):
    up.order(patches, ['a'])


def test_load_some_reads_only_what_is_asked(tmp_path):
  folder = tmp_path / 'patches'
  folder.mkdir()
  for fix, depends in (('a', ['b']), ('b', []), ('c', [])):
    patch = up.parse(fixtures_table(fix, depends))
    (folder / f'{fix}.toml').write_text(up.dumps(patch))
  (folder / 'draft.toml').write_text('fix = "draft"\n')
  assert sorted(up.load_some(['a'], folder)) == ['a', 'b']
  with pytest.raises(up.PatchError, match='draft.toml'):
    up.load_all(folder)
  with pytest.raises(up.PatchError, match="no patch for 'd'"):
    up.load_some(['d'], folder)


def fixtures_table(fix: str, depends: list[str]) -> dict:
  """A valid patch table for ``fix`` depending on ``depends``."""
  return patch_table(fix=fix, depends=depends,
                     why_depends='x' if depends else '')


def test_fork_wording_in_a_placed_test_is_refused(tree, repo, tmp_path):
  path = repo / 'upstream_tests' / 'scale_doubles_test.py'
  path.write_text(path.read_text().replace(
      '  def test_doubles(self):\n',
      '  def test_doubles(self):\n    # As the fork does.\n'))
  with pytest.raises(up.PatchError, match="speaks of 'fork'"):
    up.apply({'scale-doubles': up.parse(patch_table())}, ['scale-doubles'],
             tree, tmp_path / 'a', repo=repo)


def test_add_imports_keeps_google_order():
  source = ('"""Doc."""\n\nfrom absl.testing import absltest\n'
            'import jax\nfrom optax._src import base\n')
  out = up.add_imports(source, ['import numpy as np', 'import chex',
                                'import jax', 'from optax import tree'])
  assert out.splitlines()[2:] == [
      'from absl.testing import absltest', 'import chex', 'import jax',
      'import numpy as np', 'from optax import tree',
      'from optax._src import base']
  # The standard library in its own group, first.
  out = up.add_imports(
      'import functools\n\nfrom absl.testing import absltest\nimport optax\n',
      ['import warnings', 'from typing import NamedTuple'])
  assert out.splitlines() == [
      'import functools', 'from typing import NamedTuple', 'import warnings',
      '', 'from absl.testing import absltest', 'import optax']
  # As upstream orders them: a package before its submodules.
  out = up.add_imports('from optax import contrib\nimport optax.tree\n',
                       ['from optax.transforms import _accumulation'])
  assert out.splitlines() == [
      'from optax import contrib',
      'from optax.transforms import _accumulation', 'import optax.tree']


def test_every_committed_patch_is_valid():
  patches = up.load_all()
  assert patches
  for fix, patch in patches.items():
    assert patch.path is not None and patch.path.stem == fix
    assert patch.test is not None, f'{fix}: no [test]'


@pytest.mark.parametrize('fields, match', [
    ({'subject': 'x' * 73}, 'at most 72 characters'),
    ({'references': [{'ref': '#13', 'kind': 'pull', 'review_first': True}]},
     'needs differs'),
    ({'references': [{'ref': '#13', 'kind': 'issue', 'review_first': True,
                      'differs': 'a test'}]}, 'open pull request'),
    ({'references': [{'ref': '#13', 'kind': 'pull', 'differs': 'a test'}]},
     'goes with review_first'),
    ({'references': [{'ref': '#13', 'kind': 'pull', 'review_first': True,
                      'differs': 'the fork has a test'}]}, "speaks of 'fork'"),
    ({'test': {'source': 'a_test.py', 'into': 'optax/x_test.py',
               'after': 'not a name'}}, 'after must name'),
])
def test_parse_rejects_long_subjects_and_bad_duplicates(fields, match):
  with pytest.raises(up.PatchError, match=match):
    up.parse(patch_table(**fields))


def test_a_duplicate_pull_request_round_trips():
  patch = up.parse(patch_table(
      subject='x' * 72, references=[
          {'ref': '#13', 'kind': 'pull', 'note': 'open', 'review_first': True,
           'differs': 'the same line; this one adds a jit test'}]))
  ref = patch.references[0]
  assert ref.review_first and ref.differs.startswith('the same line')
  assert up.parse(tomllib.loads(up.dumps(patch))) == patch


def test_place_test_after_a_method_or_a_class(tree, repo):
  path = tree / 'optax' / 'module_test.py'
  path.write_text(path.read_text().replace(
      '    self.assertEqual(module.other(), 1)\n',
      '    self.assertEqual(module.other(), 1)\n\n'
      '  def test_last(self):\n    pass\n'))
  placement = up.TestPlacement(
      source='upstream_tests/scale_doubles_test.py',
      into='optax/module_test.py', klass='ScaleTest', after='test_scale')
  up.place_test(tree, placement, repo)
  text = path.read_text()
  assert (text.index('def test_scale(') < text.index('def test_doubles(')
          < text.index('def test_last('))
  assert '\n\n  def test_doubles(self):' in text
  assert '2.0)\n\n  def test_last(self):' in text
  # A whole class goes after a top-level definition.
  placement = up.TestPlacement(
      source='upstream_tests/scale_doubles_test.py',
      into='optax/module_test.py', after='ScaleTest')
  up.place_test(tree, placement, repo)
  text = path.read_text()
  assert (text.index('class ScaleTest') < text.index('class ScaleDoublesTest')
          < text.index("if __name__ == '__main__':"))
  compile(text, 'module_test.py', 'exec')
  with pytest.raises(up.PatchError, match='no method test_nothing'):
    up.place_test(tree, dataclasses.replace(
        placement, klass='ScaleTest', after='test_nothing'), repo)


def test_add_imports_goes_into_the_block_of_what_follows():
  source = ('import jax\n\nfrom optax import schedules\n\n'
            'from optax._src import base\n')
  assert up.add_imports(source, ['from optax._src import alias']) == (
      'import jax\n\nfrom optax import schedules\n\n'
      'from optax._src import alias\nfrom optax._src import base\n')
  assert up.add_imports(source, ['import abc']) == 'import abc\n' + source
  assert up.add_imports(source, ['from optax._src import utils']).endswith(
      'from optax._src import base\nfrom optax._src import utils\n')

"""Sphinx configuration of the optax fork's documentation.

Build with ``sphinx-build -W --keep-going -b html docs OUT`` from the
repository root. Each API page (``docs/api/*.rst``) has an autosummary table
followed by the autodoc entries of its objects, all on the one page: a page
per area rather than a page per object keeps the build fast.
"""

import os
import sys

sys.path.insert(
    0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..')))

import optax  # pylint: disable=wrong-import-position

# ``optax.experimental.aggregating`` is an attribute (the private module
# ``optax.experimental._aggregating``), not an importable submodule; autodoc
# imports the module part of a dotted name, so register it under its public
# name for the documentation build only.
sys.modules.setdefault('optax.experimental.aggregating',
                       optax.experimental.aggregating)


def _gallery() -> None:
  """Puts the examples' plots in docs/_gallery for the examples page.

  The plots come from ``OPTAX_GALLERY_DIR`` (where test.sh's run of the
  examples test saved them); a plot that is not there is made by running its
  example with ``--quick``.
  """
  import shutil
  import subprocess
  docs = os.path.dirname(os.path.abspath(__file__))
  examples = os.path.join(docs, '..', 'examples')
  target = os.path.join(docs, '_gallery')
  os.makedirs(target, exist_ok=True)
  source = os.environ.get('OPTAX_GALLERY_DIR', '')
  for name in sorted(os.listdir(examples)):
    stem, ext = os.path.splitext(name)
    if ext != '.py' or stem in ('quickstart', 'example_utils'):
      continue
    png = os.path.join(target, stem + '.png')
    made = os.path.join(source, stem + '.png') if source else ''
    if made and os.path.exists(made):
      shutil.copyfile(made, png)
    elif not os.path.exists(png):
      subprocess.run([sys.executable, name, '--quick', '--out', png],
                     cwd=examples, check=True, capture_output=True)


_gallery()

project = 'optax (maintained fork)'
author = 'The optax fork authors'
copyright = '2026, The optax fork authors'  # pylint: disable=redefined-builtin

extensions = [
    'sphinx.ext.autodoc',
    'sphinx.ext.autosummary',
    'sphinx.ext.napoleon',
    'sphinx.ext.mathjax',
    'myst_parser',
]

source_suffix = {'.rst': 'restructuredtext', '.md': 'markdown'}
exclude_patterns = ['_build', 'README.md']
templates_path = ['_templates']

# API reference: autosummary tables only (no generated stub pages).
autosummary_generate = False
autodoc_typehints = 'none'
autodoc_member_order = 'bysource'
autodoc_inherit_docstrings = False
add_module_names = False

napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False

myst_heading_anchors = 3

html_theme = 'sphinx_book_theme'
html_title = 'optax (maintained fork)'
html_theme_options = {
    'show_toc_level': 2,
}

"""Sphinx configuration of the optax fork's documentation."""

import os
import sys

sys.path.insert(0, os.path.abspath('..'))

project = 'optax (maintained fork)'
author = 'The optax fork authors'
copyright = '2026, The optax fork authors'  # pylint: disable=redefined-builtin

extensions = [
    'sphinx.ext.autodoc',
    'sphinx.ext.napoleon',
    'sphinx.ext.mathjax',
    'sphinx.ext.viewcode',
]
autodoc_typehints = 'none'
autodoc_member_order = 'bysource'
napoleon_google_docstring = True
napoleon_numpy_docstring = False
html_theme = 'alabaster'
exclude_patterns = ['_build']

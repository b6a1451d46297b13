# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""The fork's tools and lanes, run as ``python -m tools.NAME`` (README.md).

Importing the package imports nothing else: a tool's module may run under
upstream's interpreter, beside an ``optax`` that is not this repository's.
"""

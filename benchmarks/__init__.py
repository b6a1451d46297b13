# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Benchmarks of the fork beside upstream Optax (docs/benchmarks.md).

Each runs as ``python -m benchmarks.NAME`` from the repository's root.
"""

# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""The fuzz lane: odd input, upstream Optax against the fork (fuzz.py)."""

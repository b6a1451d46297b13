# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""The live comparison with upstream Optax (run.sh; tools/README.md)."""

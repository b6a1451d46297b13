# Copyright 2026 The optax fork authors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
# ==============================================================================
"""Combining transformations: the names kept under ``optax._src.combine``.

The implementations live in :mod:`optax.transforms._combining`.
"""

from optax.transforms import _combining

chain = _combining.chain
named_chain = _combining.named_chain
partition = _combining.partition
PartitionState = _combining.PartitionState

# The older names of partition and its state.
multi_transform = _combining.multi_transform
MultiTransformState = _combining.MultiTransformState

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
"""The runtime scalars of fused kernels, read from optimized HLO text.

For the tests (``program_size_test.py``) and ``benchmarks/kernel_scalars.py``
only (see ``optax._src.testing``).
"""

import re

# An HLO type of rank 0 (``f32[]``), an instruction's name, result type and
# opcode, and a fusion's result type (a tuple for a multi-output fusion, as
# XLA:GPU makes of an optimizer's per-leaf kernel) and operand list.
_HLO_RANK0 = re.compile(
    r'^(pred|s8|s16|s32|s64|u8|u16|u32|u64|bf16|f16|f32|f64|c64|c128)\[\]')
_HLO_INSTRUCTION = re.compile(
    r'\s*(?:ROOT )?(%[\w.\-]+) = (\([^)]*\)|\S+) ([\w\-]+)\(')
_HLO_FUSION = re.compile(r'= (\([^)]*\)|\S+) fusion\((.*?)\), kind=')

# What a step is compiled with to see the fusions XLA:GPU makes: XLA:CPU
# removes optimization barriers before fusion, XLA:GPU only after it.
GPU_ORDER_FUSION = {'xla_disable_hlo_passes': 'cse_barrier_expander'}


def fused_kernel_scalars(hlo: str) -> list[tuple[str, int]]:
  """The runtime scalars each fused kernel over an array reads.

  A hyperparameter XLA sees as a constant is folded into every leaf's
  kernel; one it cannot see through (behind an optimization barrier, or an
  argument) is computed once and passed to every kernel as a rank-0
  operand, read at run time. Fusions whose own result is a scalar (the
  once-per-step arithmetic) are left out.

  Args:
    hlo: the text of an optimized HLO module (``compiled.as_text()``).

  Returns:
    ``(result_type, count)`` per fusion with a non-scalar result, in the
    order of the text: ``count`` is the number of its operands of rank 0
    that are not constants.
  """
  lines = hlo.splitlines()
  defined = {}
  for line in lines:
    found = _HLO_INSTRUCTION.match(line)
    if found:
      defined[found.group(1)] = (found.group(2), found.group(3))
  kernels = []
  for line in lines:
    found = _HLO_FUSION.search(line)
    if not found or _HLO_RANK0.match(found.group(1)):
      continue
    count = 0
    for operand in found.group(2).split(','):
      # An operand is printed as its name, after its type and a comment
      # in some versions of XLA ('f32[] %p', '/*index=5*/%p').
      name = operand.split('*/')[-1].split()[-1] if operand.strip() else ''
      type_, opcode = defined.get(name, ('', ''))
      count += bool(_HLO_RANK0.match(type_)) and opcode != 'constant'
    kernels.append((found.group(1), count))
  return kernels

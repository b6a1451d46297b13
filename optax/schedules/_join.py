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
"""Concatenation of schedules in time."""

from collections.abc import Sequence

import jax.numpy as jnp

from optax._src import base


def join_schedules(
    schedules: Sequence[base.Schedule],
    boundaries: Sequence[int],
) -> base.Schedule:
  r"""Plays several schedules one after the other.

  The first schedule is used before ``boundaries[0]`` and sees the raw step;
  the ``i``-th one (``i >= 1``) takes over at step ``boundaries[i - 1]`` and
  sees the number of steps elapsed since then, so it starts from its own
  step 0. With :math:`b_i` = ``boundaries[i]`` and :math:`b_n = \infty`:

  .. math::

    f(t) = \begin{cases}
      f_0(t) & t < b_0, \\
      f_i(t - b_{i - 1}) & b_{i - 1} \le t < b_i.
    \end{cases}

  Args:
    schedules: the schedules to play, in order; at least one.
    boundaries: the steps at which each schedule after the first takes over;
      exactly ``len(schedules) - 1`` of them, in increasing order.

  Returns:
    A schedule (a function of the step) that is jit-safe and accepts Python
    or JAX integer steps.

  Raises:
    ValueError: if ``schedules`` is empty or the numbers of schedules and
      boundaries do not fit.

  Examples:
    >>> import optax
    >>> warmup = optax.linear_schedule(0.0, 1.0, transition_steps=4)
    >>> decay = optax.exponential_decay(1.0, transition_steps=1,
    ...                                 decay_rate=0.5)
    >>> schedule = optax.join_schedules([warmup, decay], boundaries=[4])
    >>> [float(schedule(t)) for t in range(7)]
    [0.0, 0.25, 0.5, 0.75, 1.0, 0.5, 0.25]
  """
  schedules = list(schedules)
  boundaries = list(boundaries)
  if not schedules:
    raise ValueError('join_schedules: schedules must hold at least one '
                     'schedule, got an empty sequence.')
  if len(boundaries) != len(schedules) - 1:
    raise ValueError(
        'join_schedules: expected len(boundaries) == len(schedules) - 1 (one '
        'boundary where each schedule after the first takes over), got '
        f'{len(schedules)} schedules and {len(boundaries)} boundaries.')

  def schedule(step: base.Numeric) -> base.Numeric:
    output = schedules[0](step)
    for boundary, later in zip(boundaries, schedules[1:]):
      output = jnp.where(step < boundary, output, later(step - boundary))
    return output

  return schedule

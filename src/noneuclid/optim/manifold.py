"""Algorithm 1 of Brantner, "Generalizing Adam to manifolds": one optimizer framework for vector
spaces and homogeneous spaces.

    Delta_t      <- rgrad(grad L)                  Riemannian gradient (eq. 4)
    lambda, calB <- lift(Y_t, Delta_t)             section and global-tangent-space representation
    cache        <- update(cache, calB, t)         e.g. Adam's first and second moments (eq. 5)
    W_t          <- velocity(cache)                e.g. -eta M1 / sqrt(M2 + delta) (eq. 6)
    Y_{t+1}      <- retraction(Y_t, W_t, lambda)   geodesic (eq. 13, 19-21) or Cayley

For an ordinary parameter rgrad and lift are the identity and the retraction is addition, so
ManifoldGD, ManifoldMomentum and ManifoldAdam reduce to SGD, heavy-ball SGD and Adam. For a
StiefelParameter, calB is the pair (A, B) of g^hor (A skew n x n, B (N - n) x n); all Stiefel
parameters of one shape are stacked and go through rgrad and lift (one call: stiefel.lift_gradient),
cache update and retraction in one batched call per step.
"""

from __future__ import annotations

from collections import defaultdict

import torch
from torch import Tensor

from noneuclid.geometry import stiefel
from noneuclid.nn.parameters import StiefelParameter


class ManifoldOptimizer(torch.optim.Optimizer):
    """Base class: subclasses name their cache tensors and implement update + velocity.

    section: which lambda(Y) = [Y, Q] lifts the gradient (stiefel.Section). Any section with
    lambda(Y)E = Y is valid for Algorithm 1: Algorithm 2 draws its random matrix (R in stiefel.Section)
    "from a given distribution", and the paper's appendix computes lambda with Householder
    reflections. "householder" (the default) takes
    Q from the reflectors of the QR of Y: deterministic, so Adam's moments of B stay in the same
    coordinates from step to step as long as Y moves little, and cheaper (no random orthogonal matrix
    per projection and step). "random" redraws Q at every step (Algorithm 2 as the authors' code runs it).
    The choice may change training (on Brantner's ViT a householder seed of Adam can stay on a one-class
    plateau; experiment=brantner/section, results/brantner/cpu/section.md), so the paper's runs pin "random".
    retraction: "geodesic" (eq. 13, exp) or "cayley".
    """

    cache_names: tuple[str, ...] = ()

    def __init__(self, params, defaults: dict, retraction: str = "geodesic", section: str = "householder"):
        super().__init__(params, dict(defaults, retraction=retraction, section=section))
        self._stacks: dict[tuple, tuple[Tensor, tuple[Tensor, ...]]] = {}  # stacked state and its views

    def add_param_group(self, param_group: dict) -> None:
        """torch's add_param_group, then a check of the group's settings (bad ones fail here, not at step)."""
        super().add_param_group(param_group)
        group = self.param_groups[-1]
        if group["retraction"] not in ("geodesic", "cayley"):
            raise ValueError(f"retraction must be 'geodesic' or 'cayley', got {group['retraction']!r}")
        if group["section"] not in ("random", "householder"):
            raise ValueError(f"section must be 'random' or 'householder', got {group['section']!r}")
        if not group["lr"] > 0:
            raise ValueError(f"learning rate must be positive, got {group['lr']}")

    # -- the two steps that differ between GD, Momentum and Adam (on lists of tensors) --------------
    def update_and_velocity(
        self, grads: list[Tensor], caches: dict[str, list[Tensor]], steps: list[int], group: dict
    ) -> list[Tensor]:
        raise NotImplementedError

    # -- Algorithm 1 -------------------------------------------------------------------------------
    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if any(p.grad.is_sparse for p in params):
                raise RuntimeError(f"{type(self).__name__} does not support sparse gradients")
            vector = [p for p in params if not isinstance(p, StiefelParameter)]
            if vector:
                self._step_vector(vector, group)
            by_shape = defaultdict(list)  # stacked together: same shape and same step count
            for p in params:
                if isinstance(p, StiefelParameter):
                    by_shape[(p.shape, p.dtype, p.device, self.state[p].get("step", 0))].append(p)
            for same_shape in by_shape.values():
                self._step_stiefel(same_shape, group)
        return loss

    def _advance(self, params: list[Tensor]) -> list[int]:
        steps = []
        for p in params:
            state = self.state[p]
            state["step"] = state.get("step", 0) + 1
            steps.append(state["step"])
        return steps

    def _step_vector(self, params: list[Tensor], group: dict) -> None:
        """Vector-space case: B = gradient, retraction = addition."""
        steps = self._advance(params)
        caches = {
            name: [self.state[p].setdefault(name, torch.zeros_like(p)) for p in params] for name in self.cache_names
        }
        velocity = self.update_and_velocity([p.grad for p in params], caches, steps, group)
        torch._foreach_add_(params, velocity)

    def _step_stiefel(self, params: list[Tensor], group: dict) -> None:
        """Manifold case, batched over all parameters of one shape: Y is [P, ..., N, n]."""
        steps = self._advance(params)  # all equal (see step)
        Y = torch.stack(params)
        G = torch.stack([p.grad for p in params])
        section = stiefel.Section(Y, group["section"])
        A, B = stiefel.lift_gradient(Y, section, G)  # rgrad and lift: [P, ..., n, n], [P, ..., N-n, n]
        caches = {
            name: [
                self._stacked_state(params, f"{name}_A", A.shape[1:]),
                self._stacked_state(params, f"{name}_B", B.shape[1:]),
            ]
            for name in self.cache_names
        }
        WA, WB = self.update_and_velocity([A, B], caches, [steps[0]] * 2, group)  # one step count for both
        torch._foreach_copy_(params, list(stiefel.retract(Y, WA, section.embed(WB), group["retraction"]).unbind(0)))

    def _stacked_state(self, params: list[Tensor], key: str, shape: torch.Size) -> Tensor:
        """One [P, *shape] tensor whose slices are the per-parameter state tensors state[p][key].

        Built once (or again after load_state_dict) so that batched updates write the state in place.
        """
        ident = (key, tuple(id(p) for p in params))
        buf, views = self._stacks.get(ident, (None, ()))
        if buf is not None and all(self.state[p].get(key) is v for p, v in zip(params, views)):
            return buf
        ref = params[0]
        buf = torch.stack([self.state[p][key] if key in self.state[p] else ref.new_zeros(shape) for p in params])
        views = buf.unbind(0)
        for p, view in zip(params, views):
            self.state[p][key] = view
        self._stacks[ident] = buf, views
        return buf


class ManifoldGD(ManifoldOptimizer):
    """Gradient descent: no cache, W = -eta B."""

    def __init__(self, params, lr: float = 1e-3, **kwargs):
        super().__init__(params, dict(lr=lr), **kwargs)

    def update_and_velocity(self, grads, caches, steps, group):
        return torch._foreach_mul(grads, -group["lr"])


class ManifoldMomentum(ManifoldOptimizer):
    """Heavy-ball momentum: M <- alpha M + B, W = -eta M (torch.optim.SGD with momentum=alpha)."""

    cache_names = ("momentum",)

    def __init__(self, params, lr: float = 1e-3, alpha: float = 0.5, **kwargs):
        if not 0.0 <= alpha < 1.0:
            raise ValueError(f"momentum alpha must be in [0, 1), got {alpha}")
        super().__init__(params, dict(lr=lr, alpha=alpha), **kwargs)

    def update_and_velocity(self, grads, caches, steps, group):
        M = caches["momentum"]
        torch._foreach_mul_(M, group["alpha"])
        torch._foreach_add_(M, grads)
        return torch._foreach_mul(M, -group["lr"])


class ManifoldAdam(ManifoldOptimizer):
    """Adam with the bias-corrected caches of eq. (5), elementwise on g^hor:

    M1 <- (b1 - b1^t)/(1 - b1^t) M1 + (1 - b1)/(1 - b1^t) B
    M2 <- (b2 - b2^t)/(1 - b2^t) M2 + (1 - b2)/(1 - b2^t) B * B
    W   = -eta M1 / sqrt(M2 + delta)   (eq. 6, eps_inside_sqrt=True, the paper's text)
    W   = -eta M1 / (sqrt(M2) + delta) (eps_inside_sqrt=False: torch.optim.Adam, the authors' code)
    """

    cache_names = ("first_moment", "second_moment")

    def __init__(
        self,
        params,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.99),
        eps: float = 3e-7,
        eps_inside_sqrt: bool = True,
        **kwargs,
    ):
        if not all(0.0 <= b < 1.0 for b in betas):
            raise ValueError(f"betas must lie in [0, 1), got {betas}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, eps_inside_sqrt=eps_inside_sqrt), **kwargs)

    def update_and_velocity(self, grads, caches, steps, group):
        (b1, b2), lr, eps = group["betas"], group["lr"], group["eps"]
        M1, M2 = caches["first_moment"], caches["second_moment"]
        c1 = [1 - b1**t for t in steps]
        c2 = [1 - b2**t for t in steps]
        torch._foreach_mul_(M1, [(b1 - (1 - c)) / c for c in c1])
        torch._foreach_add_(M1, torch._foreach_mul(grads, [(1 - b1) / c for c in c1]))
        torch._foreach_mul_(M2, [(b2 - (1 - c)) / c for c in c2])
        torch._foreach_add_(M2, torch._foreach_mul(torch._foreach_mul(grads, grads), [(1 - b2) / c for c in c2]))
        if group["eps_inside_sqrt"]:
            denom = torch._foreach_sqrt(torch._foreach_add(M2, eps))
        else:
            denom = torch._foreach_add(torch._foreach_sqrt(M2), eps)
        return torch._foreach_mul(torch._foreach_div(M1, denom), -lr)


OPTIMIZERS = {"gd": ManifoldGD, "momentum": ManifoldMomentum, "adam": ManifoldAdam}

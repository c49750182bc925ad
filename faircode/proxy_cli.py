"""Proxy hints' CLI flags (SPEC.md section 16), shared by `profile` and `compare`."""

from __future__ import annotations

from .options import Options

TYPE_CHECKING = False  # typing costs ~5 ms of start-up; only type checkers read it
if TYPE_CHECKING:
    from typing import Any

__all__ = ["add_proxy_options", "proxy_opts"]


def add_proxy_options(p: Any, held_out: bool) -> None:
    """The CLI's proxy-hint options (SPEC 16); --proxy-hints-with on profile only."""
    d = Options()
    p.add_argument(
        "--proxy-hints",
        action="store_true",
        default=None,
        help="test every pair of dimensions for association (the proxy extra: scipy)",
    )
    p.add_argument(
        "--proxy-alpha", metavar="X", help=f"significance level (default {d.proxy_alpha})"
    )
    p.add_argument(
        "--proxy-correction",
        choices=("holm", "bonferroni", "none"),
        help=f"multiple-testing correction (default {d.proxy_correction})",
    )
    p.add_argument(
        "--proxy-exact",
        action="store_true",
        default=None,
        help="Fisher's exact test for 2x2 tables, a seeded permutation test otherwise",
    )
    p.add_argument(
        "--proxy-permutations",
        metavar="N",
        help=f"permutations of --proxy-exact (default {d.proxy_permutations})",
    )
    p.add_argument(
        "--proxy-seed", metavar="N", help=f"seed of --proxy-exact (default {d.proxy_seed})"
    )
    if held_out:
        p.add_argument(
            "--proxy-hints-with",
            action="append",
            metavar="PATH=COLUMN[:KEY]",
            help="also test COLUMN of another CSV, by row order or joined on KEY; repeatable",
        )


def proxy_opts(args: Any) -> dict:
    """The options of add_proxy_options that were given."""
    keys = ("proxy_hints", "proxy_alpha", "proxy_correction", "proxy_exact")
    out = {k: getattr(args, k) for k in keys if getattr(args, k, None) is not None}
    for k in ("proxy_permutations", "proxy_seed"):
        if getattr(args, k, None) is not None:
            out[k] = getattr(args, k)
    if getattr(args, "proxy_hints_with", None):
        out["proxy_with"] = list(args.proxy_hints_with)
    return out

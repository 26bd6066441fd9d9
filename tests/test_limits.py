"""`--limit KEY=VALUE` parsing into Limits."""

from __future__ import annotations

import pytest

from kgb.errors import BadInput
from kgb.sandbox.base import Limits, job_limits
from kgb.sandbox.overrides import apply_overrides, parse_size


def test_sizes_and_aliases():
    limits = apply_overrides(Limits(), ("memory=4g", "pids=64", "tmp=256m", "cpus=1.5",
                                        "output_bytes=1024"))
    assert limits.memory_bytes == 4 << 30 and limits.max_processes == 64
    assert limits.tmp_bytes == 256 << 20 and limits.cpus == 1.5 and limits.output_bytes == 1024
    assert limits.wall_time_s == Limits().wall_time_s  # untouched fields keep their defaults
    assert parse_size("1.5GiB") == int(1.5 * (1 << 30)) and parse_size("10") == 10


@pytest.mark.parametrize("item,needle", [("bogus=1", "KEY=VALUE"), ("memory", "KEY=VALUE"),
                                         ("memory=lots", "not a valid value"),
                                         ("pids=0", "positive")])
def test_bad_overrides_are_bad_input(item, needle):
    with pytest.raises(BadInput, match=needle):
        apply_overrides(Limits(), (item,))


def test_a_jobs_compile_budget_is_per_case_with_a_floor():
    assert job_limits(Limits(), 10).compile_time_s == 600.0  # the floor: 10 x 30 s is less
    assert job_limits(Limits(), 36).compile_time_s == 36 * 30.0  # fla's GPU jobs: 1080 s
    more = apply_overrides(Limits(), ("compile_case=60", "compile=100"))
    assert more.compile_case_s == 60.0 and job_limits(more, 36).compile_time_s == 2160.0
    assert job_limits(more, 1).compile_time_s == 100.0
    assert job_limits(Limits(), 36).wall_time_s == Limits().wall_time_s  # the rest untouched

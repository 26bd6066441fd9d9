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


def test_a_ram_backed_output_folder_fits_the_machine(monkeypatch):
    """bwrap's output tmpfs is host RAM no job limit counts, and docker's is RAM its memory
    cgroup charges (so the container's limit must make room for it, see test_docker_gpu): by
    default a job may fill half the machine's memory shared by the jobs at once, not 32 GiB of a
    24 GiB machine."""
    from types import SimpleNamespace

    from kgb.runner import verify
    from kgb.sandbox.bwrap import BwrapSandbox
    from kgb.sandbox.docker import DockerSandbox
    from kgb.sandbox.process import ProcessSandbox

    gib = 1 << 30
    monkeypatch.setattr(verify.psutil, "virtual_memory", lambda: SimpleNamespace(total=24 * gib))
    assert BwrapSandbox.output_in_ram and DockerSandbox.output_in_ram
    assert not ProcessSandbox.output_in_ram
    fitted = verify.fit_output_to_ram(Limits(), BwrapSandbox, 2, ())
    assert fitted.output_bytes == 6 * gib and fitted.memory_bytes == Limits().memory_bytes
    assert verify.fit_output_to_ram(Limits(), BwrapSandbox, 64, ()).output_bytes == gib
    chosen = apply_overrides(Limits(), ("output=40g",))
    assert verify.fit_output_to_ram(chosen, BwrapSandbox, 2, ("output=40g",)) == chosen
    assert verify.fit_output_to_ram(Limits(), DockerSandbox, 2, ()).output_bytes == 6 * gib
    monkeypatch.setattr(verify.psutil, "virtual_memory", lambda: SimpleNamespace(total=512 * gib))
    assert verify.fit_output_to_ram(Limits(), BwrapSandbox, 4, ()) == Limits()  # 32 GiB fits
